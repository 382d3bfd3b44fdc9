"""The runnable examples of docs/: a ```neve block directly followed (blank lines apart) by an
```output block is a complete program whose standard output the output block shows.

    python tests/docs/doc_examples.py [page.md ...]   # run them and report the differences
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
_PAIR = re.compile(r"^```neve\n(?P<src>.*?)^```\n\s*^```output\n(?P<out>.*?)^```$", re.M | re.S)


@dataclass(frozen=True)
class Example:
    page: Path
    line: int            # the line of the ```neve fence
    source: str
    output: str

    def __str__(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def examples(pages: list[Path] | None = None) -> list[Example]:
    out = []
    for page in pages or sorted(DOCS.rglob("*.md")):
        text = page.read_text(encoding="utf-8")
        for m in _PAIR.finditer(text):
            out.append(Example(page, text.count("\n", 0, m.start()) + 1, m["src"], m["out"]))
    return out


def run(ex: Example, nsm: list[str]) -> str | None:
    """None when the program prints exactly the output shown, else what went wrong."""
    with tempfile.TemporaryDirectory(prefix="neve-doc-") as d:
        prog = Path(d) / "example.nv"
        prog.write_text(ex.source)
        r = subprocess.run(nsm + ["run", str(prog)], capture_output=True, text=True, timeout=300,
                           cwd=d, env={**os.environ, "NSM_QUIET": "1"})
    if r.returncode != 0:
        return f"{ex}: exit {r.returncode}\n{r.stderr}"
    if r.stdout != ex.output:
        return f"{ex}: printed\n{r.stdout}expected\n{ex.output}"
    return None


def run_all(exs: list[Example], nsm: list[str], jobs: int = 2) -> list[str]:
    with ThreadPoolExecutor(jobs) as pool:
        return [e for e in pool.map(lambda ex: run(ex, nsm), exs) if e]


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT / "tests"))
    from programs_runner import nsm_command
    found = examples([Path(p).resolve() for p in sys.argv[1:]] or None)
    errors = run_all(found, nsm_command())
    print("\n".join(errors))
    print(f"{len(found) - len(errors)} passed, {len(errors)} failed")
    sys.exit(1 if errors else 0)
