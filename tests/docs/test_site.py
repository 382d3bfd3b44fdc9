"""The documentation site: `mkdocs build --strict` passes, the generated nsm reference names every
command and option of the click app, the Frost API page holds Frost's public names with their
docstrings, every environment variable the code reads is documented, and the docstring
extractor (nsm/docgen.py) reads what a Neve docstring is: the `#` lines directly above."""
from __future__ import annotations

import html
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import click
import pytest

from nsm import docgen
from nsm.cli import cli

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    if shutil.which("mkdocs", path=str(Path(sys.executable).parent)) is None:
        pytest.fail("mkdocs is missing: pip install -e '.[test]' installs mkdocs-material")
    out = tmp_path_factory.mktemp("site")
    r = subprocess.run([str(Path(sys.executable).parent / "mkdocs"), "build", "--strict", "-q",
                        "-f", str(ROOT / "mkdocs.yml"), "-d", str(out)],
                       capture_output=True, text=True, timeout=300, cwd=ROOT,
                       env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert r.returncode == 0, r.stderr
    return out


def _text(page: Path) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", page.read_text(encoding="utf-8")))


def test_every_nsm_command_and_option_is_documented(site):
    page = _text(site / "nsm/commands/index.html")
    assert "generated: nsm-commands" not in page
    missing = []
    ctx = click.Context(cli, info_name="nsm")
    for path in docgen.command_paths(cli):
        if f"\n{path}\n" not in page and f"{path}¶" not in page:
            missing.append(path)
        cmd = cli
        for part in path.split()[1:]:
            cmd = cmd.get_command(ctx, part)
        section = page.split(f"{path}¶", 1)[-1].split("¶", 1)[0]     # up to the next heading
        missing += [f"{path} {o}" for o in docgen.option_names(cmd) if o not in section]
    assert missing == []
    assert {"nsm run", "nsm build", "nsm install", "nsm bench"} <= set(docgen.command_paths(cli))


def test_reference_shows_a_new_command_with_its_options():
    @click.group()
    def g():
        """Top."""

    @g.command()
    @click.option("--fast/--slow", help="Go fast.")
    @click.argument("file")
    def zap(fast, file):
        """Zap FILE."""

    text = docgen.nsm_reference(g)
    assert "### `nsm zap`" in text
    assert "nsm zap [OPTIONS] FILE" in text
    assert "| `--fast / --slow` | Go fast. |" in text
    assert "| `FILE` | (argument: see the usage line) |" in text
    assert docgen.command_paths(g) == ["nsm zap"]


def test_frost_api_page_lists_public_names_with_docstrings(site):
    page = _text(site / "frost/api/index.html")
    assert "generated: frost-api" not in page
    for name in ("import frost/nn", "Linear", "AdamW", "cross_entropy", "DataLoader",
                 "kaiming_uniform_"):
        assert name in page, name
    # a docstring from nn.nv, as written above its definition
    assert "(He et al. 2015, leaky-relu gain); returns w." in page


def test_every_environment_variable_read_is_documented():
    doc = (ROOT / "docs/nsm/environment.md").read_text()
    read = set()
    py = re.compile(r"""environ(?:\.get\(|\[)\s*["']([A-Z][A-Z0-9_]+)["']""")
    for f in list((ROOT / "nsm").rglob("*.py")) + list((ROOT / "compiler").rglob("*.py")):
        read |= set(py.findall(f.read_text(encoding="utf-8")))
    for f in [*(ROOT / "runtime_cpp").rglob("*.cpp"), *(ROOT / "packages").glob("*/native/*.cpp")]:
        read |= set(re.findall(r'getenv\("([A-Z][A-Z0-9_]+)"\)', f.read_text(encoding="utf-8")))
    # packages' native parts: the NEVE_ variables (Frost's cuBLAS binding reads NEVE_CUBLAS_LIB)
    for f in (ROOT / "packages").glob("*/native/*.cpp"):
        read |= set(re.findall(r'getenv\("(NEVE_[A-Z0-9_]+)"\)', f.read_text(encoding="utf-8")))
    assert len(read) > 10
    assert sorted(v for v in read if f"`{v}`" not in doc) == []


def test_docstring_is_the_comment_block_directly_above(tmp_path):
    src = tmp_path / "m.nv"
    src.write_text(textwrap.dedent("""\
        # m: a module charter.

        import frost

        # ------------------------------------------------ section

        # Scale x by k.
        # Error: k < 0.
        def float scale(float x, int k)
            return x * k

        # not attached: a blank line follows

        def int bare()
            return 1

        def int _hidden()
            return 2

        # A box.
        class Box<T>
            T item
            # Make a box.
            ctor(T item)
                self.item = item
            # The item.
            def T get()
                return self.item
            def void _private()
                pass

        # Sum.
        def Box<T> +<T>(Box<T> a, Box<T> b)
            return a

        type pair = tuple<int, int>
        """))
    mod = docgen.read_module(src, "m")
    assert mod.doc == "m: a module charter."
    assert [(d.kind, d.name, d.doc) for d in mod.definitions] == [
        ("def", "scale", "Scale x by k.\nError: k < 0."), ("def", "bare", ""),
        ("class", "Box", "A box."), ("def", "+", "Sum."), ("type", "pair", "")]
    box = mod.definitions[2]
    assert [(m.name, m.signature, m.doc) for m in box.members] == [
        ("ctor", "ctor(T item)", "Make a box."), ("get", "def T get()", "The item.")]


def test_site_highlights_neve_blocks(site):
    page = (site / "language/classes/index.html").read_text(encoding="utf-8")
    assert '<span class="kd">class</span>' in page
    assert '<span class="kt">int</span>' in page


def test_pygments_lexer_reads_every_golden_program_without_error_tokens():
    sys.path.insert(0, str(ROOT / "docs/tools"))
    from neve_lexer import NeveLexer
    from pygments.token import Error

    from compiler.diagnostics import Diagnostics
    from compiler.lexer import tokenize
    lexer = NeveLexer()
    bad = []
    for path in sorted((ROOT / "tests/programs").rglob("*.nv")):
        src = path.read_text(encoding="utf-8", errors="replace")
        d = Diagnostics()
        tokenize(src, str(path), d)
        if d.items:
            continue                                # lexical-error tests
        bad += [f"{path.relative_to(ROOT)}: {text!r}" for tok, text in lexer.get_tokens(src)
                if tok is Error]
    assert bad[:10] == []
