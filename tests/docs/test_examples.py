"""Every runnable example of the documentation (tests/docs/doc_examples.py) prints what its page
shows; all are compiled and run in one test, two at a time, each in its own folder."""
from __future__ import annotations

from doc_examples import examples, run_all
from programs_runner import nsm_command


def test_every_doc_example_prints_its_output():
    found = examples()
    assert len(found) >= 20
    assert run_all(found, nsm_command()) == []


def test_examples_are_found_by_their_marker(tmp_path):
    page = tmp_path / "p.md"
    page.write_text("```neve\nmain\n    print(1)\n```\n\n```output\n1\n```\n\n"
                    "```neve\nmain\n    pass\n```\n")
    [ex] = examples([page])
    assert (ex.line, ex.source, ex.output) == (1, "main\n    print(1)\n", "1\n")
