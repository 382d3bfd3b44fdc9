"""The VS Code grammar, tokenized by vscode-textmate + vscode-oniguruma (VS Code's engine), and the
vim syntax file: both current with editors/generate.py, sample lines scoped as a table says, and
every golden program's keywords and literals scoped as the compiler's lexer reads them."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from compiler.diagnostics import Diagnostics
from compiler.lexer import tokenize
from compiler.tokens import KEYWORDS, TYPE_KEYWORDS, T

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
GRAMMAR = ROOT / "editors/vscode/syntaxes/neve.tmLanguage.json"
sys.path.insert(0, str(ROOT / "editors"))
import generate  # noqa: E402


def _need(what: str, ok: bool) -> None:
    """Skip with the reason when a tool is missing; under CI=true fail instead."""
    if ok:
        return
    msg = f"{what} (bash tests/editors/setup.sh installs it)"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(msg + " is missing under CI=true")
    pytest.skip(msg + " is missing")


def tokenize_files(paths: list[Path]) -> dict[str, list]:
    _need("node", shutil.which("node") is not None)
    _need("tests/editors/node_modules", (HERE / "node_modules/vscode-textmate").is_dir())
    req = json.dumps({"grammar": str(GRAMMAR), "files": [str(p) for p in paths]})
    r = subprocess.run(["node", str(HERE / "tokenize.mjs")], input=req, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def scope_at(line_tokens: list, index: int) -> list[str]:
    for start, end, scopes in line_tokens:
        if start <= index < end:
            return scopes
    raise AssertionError(f"no token at {index}")


def test_generated_files_are_current():
    assert generate.main(["--check"]) == 0


# (line, the text whose first character is looked at, the innermost scope expected there)
SAMPLES = [
    ("int n = 1_000_000", "1_000_000", "constant.numeric.decimal.neve"),
    ("int m = 0xFF_FF", "0xFF_FF", "constant.numeric.hex.neve"),
    ("int b = 0b1010", "0b1010", "constant.numeric.binary.neve"),
    ("f64 x = 2.0e-3", "2.0e-3", "constant.numeric.float.neve"),
    ("float y = 3e8", "3e8", "constant.numeric.float.neve"),
    ("int bad = 12abc", "12abc", "invalid.illegal.numeric.neve"),
    ("[0..n] i", "..", "keyword.operator.range.neve"),
    ("[0..n] i", "0", "constant.numeric.decimal.neve"),
    ("u16 a = 1", "u16", "storage.type.primitive.neve"),
    ("u32 a = 1", "u32", "storage.type.primitive.neve"),
    ("u64 a = 1", "u64", "storage.type.primitive.neve"),
    ("array<int> xs", "array", "storage.type.primitive.neve"),
    ("Function<void, int> f", "Function", "storage.type.primitive.neve"),
    ('str s = "tab\\there"', '"', "punctuation.definition.string.begin.neve"),
    ('str s = "tab\\there"', "\\t", "constant.character.escape.neve"),
    ('str s = "a\\x7fb"', "\\x7f", "constant.character.escape.neve"),
    ('str s = "\\u{1F600}"', "\\u{", "constant.character.escape.neve"),
    ('str s = "bad \\q"', "\\q", "invalid.illegal.escape.neve"),
    ("char c = '\\n'", "'", "punctuation.definition.string.begin.neve"),
    ('print(f"loss {x:.4f} at {i}")', "f", "storage.type.string.neve"),
    ('print(f"loss {x:.4f} at {i}")', "loss", "string.interpolated.neve"),
    ('print(f"loss {x:.4f} at {i}")', "{x", "punctuation.section.interpolation.begin.neve"),
    ('print(f"loss {x:.4f} at {i}")', ".4f", "constant.other.format-spec.neve"),
    ('print(f"{{literal}} {n + 1}")', "{{", "constant.character.escape.neve"),
    ('print(f"{{literal}} {n + 1}")', "1}", "constant.numeric.decimal.neve"),
    ('print(f"{xs.size()} items")', "size", "entity.name.function.member.neve"),
    ("x = 1  # a comment", "#", "punctuation.definition.comment.neve"),
    ("x = 1  # a comment", "a comment", "comment.line.number-sign.neve"),
    ("$Stats.calls += 1", "$", "punctuation.definition.variable.neve"),
    ("$Stats.calls += 1", "Stats", "variable.other.global.neve"),
    ("$Stats.calls += 1", "calls", "variable.other.member.neve"),
    ("out <- acc", "<-", "keyword.operator.channel.neve"),
    ("int w <- jobs", "<-", "keyword.operator.channel.neve"),
    ("def float mean(array<float> xs)", "def", "storage.type.function.neve"),
    ("def float mean(array<float> xs)", "float", "storage.type.primitive.neve"),
    ("def float mean(array<float> xs)", "mean", "entity.name.function.neve"),
    ("def T first<T, U>(T a, U b)", "first", "entity.name.function.neve"),
    ("def array<int> pair<T>(T a)", "pair", "entity.name.function.neve"),
    ("def Vec2 +(Vec2 a, Vec2 b)", "+", "entity.name.function.neve"),
    ("def Tensor half()", "half", "entity.name.function.neve"),
    ("class Scale(Layer)", "Scale", "entity.name.type.class.neve"),
    ("type gpu_tensor = Tensor", "type", "storage.type.alias.neve"),
    ("type gpu_tensor = Tensor", "gpu_tensor", "entity.name.type.alias.neve"),
    ("x = t.float()", "float", "entity.name.function.member.neve"),
    ("finish", "finish", "keyword.control.neve"),
    ("    asyncs 4 sum_squares(>nums, results)", "asyncs", "keyword.control.neve"),
    ("    asyncs 4 sum_squares(>nums, results)", "sum_squares", "entity.name.function.call.neve"),
    ("spawn beat()", "spawn", "keyword.control.neve"),
    ('lock "stats"', "lock", "keyword.control.neve"),
    ("int total = dims reduce *", "reduce", "keyword.operator.word.neve"),
    ("p = out offby i", "offby", "keyword.operator.word.neve"),
    ("from helpers import clamp", "from", "keyword.control.import.neve"),
    ("from helpers import clamp", "import", "keyword.control.import.neve"),
    ("if x == nil and not done", "nil", "constant.language.neve"),
    ("if x == nil and not done", "and", "keyword.operator.word.neve"),
    ("self.k = k", "self", "variable.language.self.neve"),
    ("print(tid, tN)", "tid", "variable.language.thread.neve"),
    ("print(tid, tN)", "print", "support.function.builtin.neve"),
    ("b = buffer<float>(n)", "buffer", "support.function.builtin.neve"),
    ("int lane = 3", "lane", "source.neve"),       # an ordinary name outside kernels (2.3)
    ("syncthreads()", "syncthreads", "entity.name.function.call.neve"),
]

KERNEL = """\
kernel void add_k(float[] a, float[] b, int n)
    int i = bx * bdx + tx
    if i < n
        a[i] += b[i]
    syncthreads()
    atomic_add(a offby 0, 1.0)

def int lane()
    return 1
"""
# (line number, text, innermost scope)
KERNEL_SAMPLES = [
    (0, "kernel", "storage.type.neve"),
    (0, "add_k", "entity.name.function.neve"),
    (0, "float", "storage.type.primitive.neve"),
    (1, "bx", "variable.language.kernel.neve"),
    (1, "tx", "variable.language.kernel.neve"),
    (4, "syncthreads", "support.function.kernel.neve"),
    (5, "atomic_add", "support.function.kernel.neve"),
    (7, "lane", "entity.name.function.neve"),       # the kernel's block ended at `def`
]


def test_sample_lines(tmp_path):
    lines = [s[0] for s in SAMPLES]
    (tmp_path / "samples.nv").write_text("\n".join(lines) + "\n")
    (tmp_path / "kernel.nv").write_text(KERNEL)
    out = tokenize_files([tmp_path / "samples.nv", tmp_path / "kernel.nv"])
    toks = out[str(tmp_path / "samples.nv")]
    wrong = []
    for i, (line, text, scope) in enumerate(SAMPLES):
        got = scope_at(toks[i], line.index(text))[-1]
        if got != scope:
            wrong.append(f"{line!r} at {text!r}: {got} (expected {scope})")
    ktoks = out[str(tmp_path / "kernel.nv")]
    klines = KERNEL.splitlines()
    for n, text, scope in KERNEL_SAMPLES:
        got = scope_at(ktoks[n], klines[n].index(text))
        if got[-1] != scope:
            wrong.append(f"kernel line {n} at {text!r}: {got[-1]} (expected {scope})")
        if n < 7 and "meta.function.kernel.neve" not in got:
            wrong.append(f"kernel line {n} at {text!r}: outside the kernel block: {got}")
    assert wrong == []


def _expected(tok, line: str) -> tuple[str, ...]:
    """The scopes the grammar may give a lexer token of a program without lexical errors."""
    if tok.kind in (T.INT, T.FLOAT):
        return ("constant.numeric",)
    if tok.kind is T.STRING:
        return ("string.quoted.double",)
    if tok.kind is T.FSTRING:
        return ("storage.type.string",)          # the `f` prefix
    if tok.kind is T.CHAR:
        return ("string.quoted.single",)
    word = tok.text
    if word in TYPE_KEYWORDS or word in ("void",):
        # a type name is a member or method name after '.' or in a method's def (2.3)
        return ("storage.type.primitive", "entity.name.function", "variable.other.member")
    if word in ("true", "false", "nil"):
        return ("constant.language",)
    if word in ("self", "super"):
        return ("variable.language.self",)
    if word in generate.OPERATOR_WORDS:
        return ("keyword.operator.word", "entity.name.function")   # `def Flag and(...)` (6.5)
    if word in generate.DECL_WORDS:
        return ("storage.type",)
    if word in generate.IMPORT_WORDS:
        return ("keyword.control.import",)
    return ("keyword.control",)


def _utf16(line: str, col: int) -> int:
    return len(line[:col - 1].encode("utf-16-le")) // 2


def test_golden_programs_scoped_as_the_lexer_reads_them():
    paths = sorted((ROOT / "tests/programs").rglob("*.nv"))
    assert len(paths) > 100
    out = tokenize_files(paths)
    checked, wrong = 0, []
    for path in paths:
        src = path.read_text(encoding="utf-8", errors="replace")
        diags = Diagnostics()
        toks = tokenize(src, str(path), diags)
        if diags.items:
            continue                               # a lexical-error test: the lexer's own business
        lines = src.lstrip("\ufeff").splitlines()
        gl = out[str(path)]
        for tok in toks:
            if tok.kind is T.KW or tok.kind in (T.INT, T.FLOAT, T.STRING, T.FSTRING, T.CHAR):
                if tok.kind is T.KW and tok.text not in KEYWORDS | TYPE_KEYWORDS:
                    continue
                line = lines[tok.span.line - 1]
                scopes = scope_at(gl[tok.span.line - 1], _utf16(line, tok.span.col))
                want = _expected(tok, line)
                checked += 1
                if not any(sc.startswith(want) for sc in scopes) and not (
                        tok.kind is T.INT and "constant.other.format-spec.neve" in scopes):
                    wrong.append(f"{path.relative_to(ROOT)}:{tok.span.line}:{tok.span.col} "
                                 f"{tok.text!r}: {scopes[-1]}, expected {' or '.join(want)}")
            elif tok.kind is T.NAME:
                line = lines[tok.span.line - 1]
                scopes = scope_at(gl[tok.span.line - 1], _utf16(line, tok.span.col))
                if scopes[-1].startswith(("keyword.control", "storage.type.primitive", "constant.language")):
                    wrong.append(f"{path.relative_to(ROOT)}:{tok.span.line}:{tok.span.col} "
                                 f"name {tok.text!r} scoped {scopes[-1]}")
    assert wrong[:20] == [], f"{len(wrong)} tokens scoped otherwise"
    assert checked > 5000


def test_vim_syntax_loads_and_highlights(tmp_path):
    vim = shutil.which("vim")
    if vim is None:
        pytest.skip("vim is not installed (the vim syntax file is checked only where it is)")
    prog = tmp_path / "p.nv"
    prog.write_text('def int f(u16 x)\n    print(f"{x}")  # c\n    $Cfg.n = 0x1F\n')
    out = tmp_path / "out.txt"
    cmds = [f"source {ROOT / 'editors/vim/syntax/neve.vim'}"]
    probes = [(1, 1), (1, 5), (1, 11), (2, 5), (2, 11), (2, 20), (3, 5), (3, 14)]
    for ln, col in probes:
        cmds.append(f"call add(g:r, synIDattr(synID({ln}, {col}, 1), 'name'))")
    script = ["let g:r = []"] + cmds + [f"call writefile(g:r, '{out}')", "qa!"]
    r = subprocess.run([vim, "-Nu", "NONE", "-es", "-c", "syntax on", "-c", " | ".join(script), str(prog)],
                       capture_output=True, text=True, timeout=60)
    assert out.is_file(), r.stdout + r.stderr
    assert out.read_text().split("\n")[:len(probes)] == [
        "neveDeclaration", "neveType", "neveType", "neveBuiltin", "neveFString", "neveComment",
        "neveGlobal", "neveNumber"]


def test_extension_manifest_starts_nsm_lsp():
    ext = ROOT / "editors/vscode"
    manifest = json.loads((ext / "package.json").read_text())
    lang = manifest["contributes"]["languages"][0]
    assert (lang["id"], lang["extensions"]) == ("neve", [".nv"])
    assert (ext / lang["configuration"]).is_file()
    g = manifest["contributes"]["grammars"][0]
    assert (g["scopeName"], (ext / g["path"]).resolve()) == ("source.neve", GRAMMAR)
    setting = manifest["contributes"]["configuration"]["properties"]["neve.server.command"]
    assert setting["default"] == ["nsm", "lsp"]
    assert "server.command" in (ext / manifest["main"]).read_text()


INDENT_AFTER = ["def int f(int x)", "class Box<T>", "main", "finish", "    asyncs 4",
                "[0..rows, 0..cols] r, c", "if x > 0  # positive", "else", "kernel void k(int n)",
                'lock "stats"', "spawn"]
NO_INDENT_AFTER = ["asyncs 4 crunch(>files)", "async load()", "spawn beat()", "x = 1",
                   "[1, 2].print()", "# if x"]


def test_language_configuration_indents_after_block_headers():
    import re
    conf = json.loads((ROOT / "editors/vscode/language-configuration.json").read_text())
    inc = re.compile(conf["indentationRules"]["increaseIndentPattern"])
    dec = re.compile(conf["indentationRules"]["decreaseIndentPattern"])
    assert [ln for ln in INDENT_AFTER if not inc.match(ln)] == []
    assert [ln for ln in NO_INDENT_AFTER if inc.match(ln)] == []
    assert [bool(dec.match(ln)) for ln in ("    else", "elif x", "elsewhere = 1")] == [True, True, False]
    assert conf["comments"]["lineComment"] == "#"
