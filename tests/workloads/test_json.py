"""std/json against Python's json: a table of documents read and written back compact (and the
last one indented), byte for byte as json.dumps(ensure_ascii=False) writes them; malformed
documents rejected at Python's line, column and message."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.frost.helpers import NSM

DRIVER = Path(__file__).parent / "json_check.nv"

VALID = [
    '{"a": [1, 2.5, -0.0, 1e400, "x\\u00e9\\ud83d\\ude00\\n", true, false, null], "b": {}, "a": 3}',
    "[]", "{}", "0", "-12", "3.25e-7", "1E+2", "123456789012345678", "1234567890123456789012",
    '"\\"\\\\\\/\\b\\f\\n\\r\\t\\u0001\\u001f\\u007f"', '"caf\u00e9 \u4e2d\u6587 \U0001f600"',
    ' \t\r\n [ [ [ ] ] , { "k" : [ 0.5 , -1e-05 ] } ] \n', '"\\uD834\\uDD1E"',
    '{"model": {"type": "BPE", "vocab": {"\u0120t": 0, "h": 1}, "merges": [["\u0120", "t"], "a b"]}}',
    '[1e16, 1e15, 0.0001, 0.00001, 1.7976931348623157e308, 5e-324, 100, -0]',
    '{"nested": {"deep": {"deeper": [[[]], [{}], "s"]}}, "empty": ""}',
]

MALFORMED = ["[1,]", '{"a":1,}', '"abc', '"a\x01"', "[1 2]", '{"a" 1}', "{1:2}", "01", "1.",
             "-", '"\\x"', '"\\u12"', '"\\u12G4"', "[1]x", "  ", "", '{"a":1 "b"}', "tru", "[", "{",
             '[\n  1,\n  2\n  3]', '{"\u00e9\u00e9": nul}', "1e", ".5", "[-]", '{"a":}']


LONE = ['["\\ud800"]', '"ab\\udc00"', '"\\ud800\\u0041"']


def run(tmp_path: Path, docs: list[str]) -> list[str]:
    paths = []
    for i, d in enumerate(docs):
        p = tmp_path / f"d{i}.json"
        p.write_bytes(d.encode("utf-8"))
        paths.append(str(p))
    p = subprocess.run([NSM, "run", str(DRIVER), *paths], cwd=tmp_path, capture_output=True,
                       timeout=300)
    assert p.returncode == 0, p.stderr.decode()[-3000:]
    return p.stdout.decode("utf-8").split("\n")


@pytest.fixture(scope="module")
def outputs(tmp_path_factory) -> dict[str, list[str]]:
    """One run of the driver over every table: each document's line, by table."""
    out = run(tmp_path_factory.mktemp("json"), MALFORMED + LONE + VALID)
    return {"malformed": out[:len(MALFORMED)], "lone": out[len(MALFORMED):len(MALFORMED) + 3],
            "valid": out[len(MALFORMED) + 3:]}


def test_valid_documents_round_trip_as_python_writes_them(outputs):
    out = outputs["valid"]
    for doc, line in zip(VALID, out):
        want = json.dumps(json.loads(doc), separators=(",", ":"), ensure_ascii=False)
        assert line == "ok " + want, doc
    assert "\n".join(out[len(VALID):]).rstrip("\n") == json.dumps(json.loads(VALID[-1]), indent=2,
                                                                   ensure_ascii=False)


def test_malformed_documents_fail_where_python_says(outputs):
    out = outputs["malformed"]
    for doc, line in zip(MALFORMED, out):
        try:
            json.loads(doc)
            raise AssertionError(f"python accepts {doc!r}")
        except json.JSONDecodeError as e:
            assert line == f"err json: line {e.lineno}, column {e.colno}: {e.msg}", doc


def test_lone_surrogate_is_an_error(outputs):
    # Located at the escape's u, as Python's \uXXXX errors. Python keeps a lone surrogate in its
    # str; UTF-8 cannot hold one, so std/json refuses it.
    out = outputs["lone"]
    assert out[:3] == ["err json: line 1, column 4: lone surrogate in \\uXXXX escape",
                       "err json: line 1, column 5: lone surrogate in \\uXXXX escape",
                       "err json: line 1, column 3: lone surrogate in \\uXXXX escape"]
