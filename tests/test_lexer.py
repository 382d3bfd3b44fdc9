"""Unit tests for compiler.lexer (LANGUAGE.md 2, 10.3, 13.1)."""
from __future__ import annotations

import glob
import os
import time

import pytest
from pathlib import Path
from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.diagnostics import CompileError, Diagnostics, Span
from compiler.lexer import tokenize, tokenize_fragment
from compiler.tokens import KEYWORDS, OPERATORS, TYPE_KEYWORDS, FPart, T

from parser_helpers import SEEDS as _SEEDS, seeds_or_skip as _seeds_dir  # noqa: E402

SEEDS = str(_SEEDS)                      # ../shared beside the repo


def seeds_or_skip() -> str:
    return str(_seeds_dir())


def lex(src: str):
    d = Diagnostics()
    return tokenize(src, "t.nv", d), d


def ok(src: str):
    toks, d = lex(src)
    assert not d.has_errors, d.render_all()
    return toks


def kinds(src: str) -> list[str]:
    """Compact picture of the token stream: OP/KW/NAME show their text, literals their kind."""
    out = []
    for t in ok(src):
        if t.kind in (T.OP, T.KW, T.NAME):
            out.append(t.text)
        else:
            out.append(t.kind.value)
    return out


def errors(src: str) -> list[tuple[int, int, str]]:
    _, d = lex(src)
    return [(x.span.line, x.span.col, x.message) for x in d.items]


def one_error(src: str):
    _, d = lex(src)
    assert len(d.items) == 1, d.render_all()
    return d.items[0]


def single(src: str):
    """The only token of a one-token line (before NEWLINE, EOF)."""
    toks = ok(src)
    assert [t.kind for t in toks[1:]] == [T.NEWLINE, T.EOF], toks
    return toks[0]


# -- identifiers, keywords, operators -------------------------------------------------------------------------


def test_names_and_keywords():
    toks = ok("def int foo_1(_x, Function)\n")
    assert [(t.kind, t.text) for t in toks[:7]] == [
        (T.KW, "def"), (T.KW, "int"), (T.NAME, "foo_1"), (T.OP, "("), (T.NAME, "_x"), (T.OP, ","),
        (T.KW, "Function"),
    ]


@pytest.mark.parametrize("word", sorted(KEYWORDS | TYPE_KEYWORDS))
def test_every_keyword_is_kw(word):
    assert single(word).kind is T.KW


@pytest.mark.parametrize("word", ["type", "sys", "tid", "tN", "tHW", "lane", "warp", "Int", "main_", "f", "self_"])
def test_contextual_words_are_names(word):
    t = single(word)
    assert (t.kind, t.text) == (T.NAME, word)


@pytest.mark.parametrize("op", OPERATORS)
def test_every_operator_alone(op):
    toks = ok(f"a {op} b\n") if op not in "()[]{}" else None
    if toks is None:
        toks, _ = lex(f"a {op} b\n")            # lone brackets are unbalanced: only the token matters here
    assert (toks[1].kind, toks[1].text) == (T.OP, op)


def test_longest_match():
    assert kinds("a//=b") == ["a", "//=", "b", "NEWLINE", "EOF"]
    assert kinds("a/|b <| c |> d >> e << f") == ["a", "/|", "b", "<|", "c", "|>", "d", ">>", "e", "<<", "f",
                                                 "NEWLINE", "EOF"]
    assert kinds("x...y..z.w") == ["x", "...", "y", "..", "z", ".", "w", "NEWLINE", "EOF"]
    assert kinds("a<=b>=c==d!=e") == ["a", "<=", "b", ">=", "c", "==", "d", "!=", "e", "NEWLINE", "EOF"]


def test_arrow_is_one_token():
    toks = ok("x<-1\n")
    assert [(t.kind, t.text, t.value) for t in toks[:3]] == [(T.NAME, "x", None), (T.OP, "<-", None),
                                                             (T.INT, "1", 1)]
    assert kinds("if x < -1") == ["if", "x", "<", "-", "INT", "NEWLINE", "EOF"]
    assert kinds("int w <- ch") == ["int", "w", "<-", "ch", "NEWLINE", "EOF"]


def test_bang_and_dollar():
    assert kinds("!ok and $Stats.calls") == ["!", "ok", "and", "$", "Stats", ".", "calls", "NEWLINE", "EOF"]
    assert kinds("!=x") == ["!=", "x", "NEWLINE", "EOF"]


def test_token_spans_and_text():
    toks = ok('  x = foo(12, "s")  # done\n')
    assert [(t.text, t.span.line, t.span.col) for t in toks] == [
        ("x", 1, 3), ("=", 1, 5), ("foo", 1, 7), ("(", 1, 10), ("12", 1, 11), (",", 1, 13), ('"s"', 1, 15),
        (")", 1, 18), ("", 1, 19), ("", 2, 1),
    ]
    assert toks[0].span == Span("t.nv", 1, 3)


# -- lines and indentation ------------------------------------------------------------------------------------


def test_blocks_indent_dedent():
    src = "def f()\n    if x\n        y\n    z\nw\n"
    assert kinds(src) == ["def", "f", "(", ")", "NEWLINE",
                          "INDENT", "if", "x", "NEWLINE",
                          "INDENT", "y", "NEWLINE",
                          "DEDENT", "z", "NEWLINE",
                          "DEDENT", "w", "NEWLINE", "EOF"]


def test_multiple_dedents_and_dedents_at_eof():
    assert kinds("a\n  b\n    c\nd\n") == ["a", "NEWLINE", "INDENT", "b", "NEWLINE", "INDENT", "c", "NEWLINE",
                                          "DEDENT", "DEDENT", "d", "NEWLINE", "EOF"]
    assert kinds("a\n  b\n    c") == ["a", "NEWLINE", "INDENT", "b", "NEWLINE", "INDENT", "c", "NEWLINE",
                                     "DEDENT", "DEDENT", "EOF"]


def test_indent_dedent_newline_eof_spans():
    toks = ok("if a  # c\n    b\nc\n")
    got = [(t.kind.value, t.span.line, t.span.col) for t in toks]
    assert got == [("KW", 1, 1), ("NAME", 1, 4), ("NEWLINE", 1, 5),
                   ("INDENT", 2, 5), ("NAME", 2, 5), ("NEWLINE", 2, 6),
                   ("DEDENT", 3, 1), ("NAME", 3, 1), ("NEWLINE", 3, 2), ("EOF", 4, 1)]
    toks = ok("if a\n    b")
    assert [(t.kind.value, t.span.line, t.span.col) for t in toks[-3:]] == [
        ("NEWLINE", 2, 6), ("DEDENT", 2, 6), ("EOF", 2, 6)]


def test_uniformly_indented_file_sets_base():
    src = "    def f()\n        x\n\n    main\n        y\n"
    assert kinds(src) == ["def", "f", "(", ")", "NEWLINE", "INDENT", "x", "NEWLINE", "DEDENT",
                          "main", "NEWLINE", "INDENT", "y", "NEWLINE", "DEDENT", "EOF"]


def test_comment_lines_do_not_set_base():
    assert kinds("# header\n  # indented comment\n    a\n    b\n") == ["a", "NEWLINE", "b", "NEWLINE", "EOF"]


def test_below_base_column():
    src = "    a\n    b\n  c\n    d\n"
    assert errors(src) == [(3, 3, "indentation below the file's base column")]
    toks, _ = lex(src)
    assert [t.kind for t in toks].count(T.INDENT) == 0


def test_below_base_column_inside_block_dedents_to_base():
    toks, d = lex("  if a\n    b\nc\n  d\n")
    assert [(x.span.line, x.span.col, x.message) for x in d.items] == [
        (3, 1, "indentation below the file's base column")]
    assert [t.kind.value if t.kind not in (T.NAME, T.KW) else t.text for t in toks] == [
        "if", "a", "NEWLINE", "INDENT", "b", "NEWLINE", "DEDENT", "c", "NEWLINE", "d", "NEWLINE", "EOF"]


def test_tabs_count_four():
    assert kinds("if a\n\tb\n    c\n") == ["if", "a", "NEWLINE", "INDENT", "b", "NEWLINE", "c", "NEWLINE",
                                           "DEDENT", "EOF"]
    assert kinds("if a\n  \tb\n      c\n") == ["if", "a", "NEWLINE", "INDENT", "b", "NEWLINE", "c", "NEWLINE",
                                               "DEDENT", "EOF"]
    # a tab is one character in columns
    toks = ok("if a\n\tb\n")
    assert toks[3].kind is T.INDENT and toks[3].span.col == 2 and toks[4].span.col == 2


def test_tab_is_four_not_to_next_stop():
    # "  \t" is 2 + 4 = 6 wide, not 4: it does not match the 4-space level
    assert errors("if a\n    b\n        c\n  \td\n") == [(4, 4, "inconsistent dedent")]


def test_inconsistent_dedent_location():
    src = "def f()\n    if x\n        y\n      z\n"
    assert errors(src) == [(4, 7, "inconsistent dedent")]
    d = one_error(src)
    assert d.hint == "indent it 0, 4 or 8 columns, as an enclosing block is"


def test_inconsistent_dedent_recovers_balanced():
    toks, d = lex("a\n    b\n        c\n      d\n      e\nf\n")
    assert [(x.span.line, x.span.col, x.message) for x in d.items] == [(4, 7, "inconsistent dedent")]
    ks = [t.kind for t in toks]
    assert ks.count(T.INDENT) == ks.count(T.DEDENT)
    assert ks[-1] is T.EOF


def test_inconsistent_dedent_each_reported():
    src = "a\n    b\n  c\nd\n    e\n  f\n"
    assert [e[:2] for e in errors(src)] == [(3, 3), (6, 3)]


def test_blank_and_comment_lines_ignored():
    src = "if a\n\n    b\n  # odd comment\n        \n\t\n    c\n# x\nd\n"
    assert kinds(src) == ["if", "a", "NEWLINE", "INDENT", "b", "NEWLINE", "c", "NEWLINE", "DEDENT", "d",
                          "NEWLINE", "EOF"]


def test_brackets_span_lines():
    src = ("def float register(gpu_tensor l,\n"
           "        gpu_tensor r,\n"
           "  str op,\n"
           ")\n"
           "    xs = [\n"
           "1, 2,  # comment inside\n"
           "\n"
           "            3,\n"
           "    ]\n"
           "    m = {\"a\": 1,\n"
           "}\n")
    assert kinds(src) == [
        "def", "float", "register", "(", "gpu_tensor", "l", ",", "gpu_tensor", "r", ",", "str", "op", ",", ")",
        "NEWLINE", "INDENT", "xs", "=", "[", "INT", ",", "INT", ",", "INT", ",", "]", "NEWLINE",
        "m", "=", "{", "STRING", ":", "INT", ",", "}", "NEWLINE", "DEDENT", "EOF"]


def test_seed_09_launch_spanning_lines():
    toks = ok(open(os.path.join(seeds_or_skip(), "09-adamw.nv")).read())
    i = next(k for k, t in enumerate(toks) if t.is_kw("launch"))
    j = next(k for k in range(i, len(toks)) if toks[k].kind is T.NEWLINE)
    assert toks[j - 1].text == ")" and toks[j - 1].span.line == toks[i].span.line + 5
    assert not any(t.kind in (T.INDENT, T.DEDENT) for t in toks[i:j])


def test_empty_and_comment_only_files():
    assert kinds("") == ["EOF"]
    assert kinds("\n\n# c\n   \n") == ["EOF"]
    assert kinds("# no newline") == ["EOF"]


def test_crlf_same_as_lf():
    lf = "def f()\n    x = \"a\"  # c\n\n    y\n"
    a, b = ok(lf), ok(lf.replace("\n", "\r\n"))
    assert [(t.kind, t.text, t.span, t.value) for t in a] == [(t.kind, t.text, t.span, t.value) for t in b]


def test_bom_is_stripped():
    toks, d = lex("\ufeffx = 1\n")
    assert not d.has_errors
    assert (toks[0].text, toks[0].span.col) == ("x", 1)
    toks, d = lex("\ufeff    x\n  y\n")
    assert [(x.span.line, x.span.col) for x in d.items] == [(2, 3)]


def test_nesting_limit():
    depth = 256                            # the first header's body is level 1
    src = "".join(" " * i + "if a\n" for i in range(depth)) + " " * depth + "pass\n"
    assert not errors(src)
    src = "".join(" " * i + "if a\n" for i in range(depth + 1)) + " " * (depth + 1) + "pass\n"
    assert errors(src) == [(depth + 2, depth + 2, "nesting too deep (limit 256)")]


# -- integers --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("text,value", [
    ("0", 0), ("42", 42), ("007", 7), ("1_000_000", 1000000), ("0xFF", 255), ("0xff", 255), ("0x1_F", 31),
    ("0b1010", 10), ("0b1_0", 2), ("9223372036854775807", 2**63 - 1), ("9223372036854775808", 2**63),
    ("0x7FFF_FFFF_FFFF_FFFF", 2**63 - 1), ("0x8000_0000_0000_0000", -(2**63)),
    ("0xFFFF_FFFF_FFFF_FFFF", -1), ("0xFFFF_FFFF_FFFF_FFFE", -2), ("0x0000_0000_0000_0000_0001", 1),
    ("0b" + "1" * 64, -1), ("0b1" + "0" * 63, -(2**63)),
    ("9223372036854775809", 2**63 + 1), ("18446744073709551615", 2**64 - 1),   # u64 (the checker decides)
])
def test_int_literals(text, value):
    t = single(text)
    assert (t.kind, t.text, t.value) == (T.INT, text, value)


@pytest.mark.parametrize("text", ["18446744073709551616", "99999999999999999999999", "1" * 5000,
                                  "0x1_0000_0000_0000_0000", "0b1" + "0" * 64])
def test_int_too_large(text):
    d = one_error(f"x = {text}\n")
    assert (d.span.line, d.span.col, d.message) == (1, 5, "integer literal too large")


@pytest.mark.parametrize("text", ["12abc", "1__0", "1_", "0x", "0x_1", "0xFG", "0b102", "0XFF", "0B1", "1e",
                                  "1.5e", "1.5x", "1_.5", "0x1.5", "3e8.5"])
def test_invalid_number(text):
    d = one_error(f"y = {text} + 1\n")
    assert (d.span.line, d.span.col, d.message) == (1, 5, f"invalid number literal '{text}'")


def test_invalid_number_hints():
    assert one_error("0XFF").hint == "write the prefix in lowercase: 0x or 0b"
    assert one_error("1__0").hint == "'_' may appear only between digits"


# -- floats ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("text,value", [
    ("0.5", "0.5"), ("2.0e-3", "2.0e-3"), ("3e8", "3e8"), ("1E+5", "1E+5"), ("1_000.0_5", "1000.05"),
    ("6.02e2_3", "6.02e23"), ("0.0000001", "0.0000001"),
])
def test_float_literals(text, value):
    t = single(text)
    assert (t.kind, t.text, t.value) == (T.FLOAT, text, value)


def test_ranges_are_not_floats():
    toks = ok("[0..n, 1...10]\n")
    assert [(t.kind.value, t.text) for t in toks[:9]] == [
        ("OP", "["), ("INT", "0"), ("OP", ".."), ("NAME", "n"), ("OP", ","), ("INT", "1"), ("OP", "..."),
        ("INT", "10"), ("OP", "]")]
    assert kinds("1.abs()") == ["INT", ".", "abs", "(", ")", "NEWLINE", "EOF"]
    assert kinds("x.e5") == ["x", ".", "e5", "NEWLINE", "EOF"]


def test_exponent_needs_digits():
    assert errors("1e+x") == [(1, 1, "invalid number literal '1e'")]
    assert kinds("1._5") == ["INT", ".", "_5", "NEWLINE", "EOF"]


def test_hex_e_is_a_digit():
    assert kinds("0x1e+5") == ["INT", "+", "INT", "NEWLINE", "EOF"]
    assert ok("0x1e+5")[0].value == 0x1E


# -- characters ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("text,value", [
    ("'a'", 97), ("' '", 32), ("'\"'", 34), ("'\\n'", 10), ("'\\t'", 9), ("'\\r'", 13), ("'\\0'", 0),
    ("'\\\\'", 92), ("'\\\"'", 34), ("'\\''", 39), ("'\\x7f'", 127), ("'\\xFF'", 255), ("'#'", 35),
])
def test_char_literals(text, value):
    t = single(text)
    assert (t.kind, t.text, t.value) == (T.CHAR, text, value)


def test_char_must_be_one_byte():
    d = one_error("c = 'é'\n")
    assert (d.span.line, d.span.col, d.message, d.hint) == (1, 5, "character literal must be one byte",
                                                            "use a str for text")
    assert errors("c = 'ab' + 'x'\n") == [(1, 5, "character literal must be one byte")]
    assert errors("c = '\\n\\n'\n") == [(1, 5, "character literal must be one byte")]


def test_char_errors():
    assert errors("c = ''\n") == [(1, 5, "empty character literal")]
    assert errors("c = 'a\nd = 1\n") == [(1, 5, "unterminated character literal")]
    assert errors("c = '") == [(1, 5, "unterminated character literal")]
    assert errors("c = '\\q'\n") == [(1, 6, "invalid escape sequence '\\q'")]
    assert errors("c = '\\u{41}'\n") == [(1, 6, "'\\u{...}' escapes are not allowed in a character literal")]
    assert errors("c = '\\x4'\n") == [(1, 6, "invalid escape sequence '\\x'")]


def test_unterminated_char_does_not_eat_next_line():
    toks, d = lex("c = 'a\nd = 1\n")
    assert [t.text for t in toks if t.span.line == 2] == ["d", "=", "1", ""]


# -- strings ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("text,value", [
    ('""', b""), ('"abc"', b"abc"), ('"tab\\there"', b"tab\there"),
    ('"\\n\\t\\r\\0\\\\\\"\\\'"', b"\n\t\r\0\\\"'"), ('"\\x41\\xff"', b"A\xff"),
    ('"\\u{e9}"', "é".encode()), ('"\\u{1F600}"', "\U0001F600".encode()), ('"\\u{0}"', b"\0"),
    ('"\\u{10FFFF}"', "\U0010FFFF".encode()), ('"né"', "né".encode()), ('"# not a comment"', b"# not a comment"),
    ('"it\'s"', b"it's"), ('"{x}}"', b"{x}}"), ('"$%*OU"', b"$%*OU"),
])
def test_string_literals(text, value):
    t = single(text)
    assert (t.kind, t.text, t.value) == (T.STRING, text, value)


@pytest.mark.parametrize("text,col,message", [
    ('"a\\qb"', 3, "invalid escape sequence '\\q'"),
    ('"\\x4g"', 2, "invalid escape sequence '\\x'"),
    ('"\\u41"', 2, "invalid escape sequence '\\u'"),
    ('"\\u{}"', 2, "invalid escape sequence '\\u'"),
    ('"\\u{1234567}"', 2, "invalid escape sequence '\\u'"),
    ('"\\u{12"', 2, "invalid escape sequence '\\u'"),
    ('"\\u{110000}"', 2, "invalid Unicode scalar value '\\u{110000}'"),
    ('"\\u{D800}"', 2, "invalid Unicode scalar value '\\u{D800}'"),
])
def test_string_escape_errors(text, col, message):
    assert errors(text + "\n") == [(1, col, message)]


def test_unterminated_string():
    assert errors('x = "abc\ny = 1\n') == [(1, 5, "unterminated string")]
    assert errors('x = "abc') == [(1, 5, "unterminated string")]
    assert errors('x = "abc\\\ny\n') == [(1, 5, "unterminated string")]
    assert errors('x = "abc\r\ny\n') == [(1, 5, "unterminated string")]
    toks, _ = lex('x = "abc\ny = 1\n')
    assert [t.text for t in toks if t.span.line == 2] == ["y", "=", "1", ""]


def test_errors_continue_in_string():
    assert errors('s = "\\q and \\w"\n') == [(1, 6, "invalid escape sequence '\\q'"),
                                              (1, 13, "invalid escape sequence '\\w'")]


# -- f-strings -------------------------------------------------------------------------------------------------


def test_fstring_parts():
    src = 'print(f"step {7:>4} loss {loss:.4f} lr {0.0003:e} id {255:x}")\n'
    t = ok(src)[2]
    assert t.kind is T.FSTRING and t.text == 'f"step {7:>4} loss {loss:.4f} lr {0.0003:e} id {255:x}"'
    assert t.value == [
        b"step ", FPart("7", Span("t.nv", 1, 15), ">4"), b" loss ", FPart("loss", Span("t.nv", 1, 27), ".4f"),
        b" lr ", FPart("0.0003", Span("t.nv", 1, 41), "e"), b" id ", FPart("255", Span("t.nv", 1, 55), "x"),
    ]


def test_fstring_spec_only_outside_brackets():
    t = single('f"{xs[1:3]}"')
    assert t.value == [FPart("xs[1:3]", Span("t.nv", 1, 4), None)]
    t = single('f"{f(a[:2], (b)):>8}|{m[k]:d}"')
    assert t.value == [FPart("f(a[:2], (b))", Span("t.nv", 1, 4), ">8"), b"|",
                       FPart("m[k]", Span("t.nv", 1, 23), "d")]
    t = single("f\"{c == ':'}\"")
    assert t.value == [FPart("c == ':'", Span("t.nv", 1, 4), None)]
    t = single('f"{x:}"')
    assert t.value == [FPart("x", Span("t.nv", 1, 4), "")]


def test_fstring_text_and_braces():
    assert single('f"{{a}} \\t\\u{e9}"').value == [b"{a} \t\xc3\xa9"]
    assert single('f""').value == []
    assert single('f"plain"').value == [b"plain"]
    assert single('f"{ a + b }{c}"').value == [FPart(" a + b ", Span("t.nv", 1, 4), None),
                                                FPart("c", Span("t.nv", 1, 13), None)]
    assert single("f\"{'\\n'}\"").value == [FPart("'\\n'", Span("t.nv", 1, 4), None)]


def test_f_prefix_only_when_adjacent():
    assert kinds('f "x"') == ["f", "STRING", "NEWLINE", "EOF"]
    assert kinds('ff"x"') == ["ff", "STRING", "NEWLINE", "EOF"]
    assert kinds("f'x'") == ["f", "CHAR", "NEWLINE", "EOF"]
    assert kinds('F"x"') == ["F", "STRING", "NEWLINE", "EOF"]
    assert kinds('x = f"{y}"') == ["x", "=", "FSTRING", "NEWLINE", "EOF"]


@pytest.mark.parametrize("src,errs", [
    ('f"{x"\n', [(1, 3, "unterminated f-string field")]),
    ('f"a {x\n', [(1, 5, "unterminated f-string field")]),
    ('f"a {x', [(1, 5, "unterminated f-string field")]),
    ('f"{d["k"]}"\n', [(1, 6, "'\"' is not allowed in an f-string field")]),
    ('f"{ {1} }"\n', [(1, 5, "'{' is not allowed in an f-string field")]),
    ('f"{a{b}c} {d}"\n', [(1, 5, "'{' is not allowed in an f-string field")]),
    ('f"a } b"\n', [(1, 5, "single '}' in f-string")]),
    ('f"{}"\n', [(1, 3, "empty f-string field")]),
    ('f"{  :x}"\n', [(1, 3, "empty f-string field")]),
    ('f"\\q{x}"\n', [(1, 3, "invalid escape sequence '\\q'")]),
    ('f"{x}\n', [(1, 1, "unterminated string")]),
])
def test_fstring_errors(src, errs):
    assert errors(src) == errs


def test_fstring_error_recovers_on_next_line():
    toks, d = lex('s = f"{d["k"]}"\nt = 1\n')
    assert len(d.items) == 1
    assert [t.text for t in toks if t.span.line == 2] == ["t", "=", "1", ""]


def test_tokenize_fragment_spans():
    part = single('   f"ab {a[i] + 1:>3}"').value[1]
    d = Diagnostics()
    toks = tokenize_fragment(part.source, part.span, d)
    assert not d.has_errors
    assert [(t.text, t.span.line, t.span.col) for t in toks] == [
        ("a", 1, 10), ("[", 1, 11), ("i", 1, 12), ("]", 1, 13), ("+", 1, 15), ("1", 1, 17), ("", 1, 18)]
    assert toks[-1].kind is T.EOF
    d = Diagnostics()
    tokenize_fragment("a ? b", Span("t.nv", 3, 7), d)
    assert [(x.span.line, x.span.col, x.message) for x in d.items] == [(3, 9, "unexpected character '?'")]


# -- other errors ----------------------------------------------------------------------------------------------


def test_non_ascii_outside_strings():
    assert errors("x = 1 # café ok\n") == []
    assert errors("int café = 1\n") == [(1, 8, "non-ASCII character outside a string or comment")]
    _, d = lex("print(\u201chi\u201d)\n")
    assert [(x.span.col, x.hint) for x in d.items] == [(7, "use ASCII quotes"), (10, "use ASCII quotes")]
    assert errors("a\u00a0= 1\nb = \u00e9\u00e9\u00e9\n") == [
        (1, 2, "non-ASCII character outside a string or comment"),
        (2, 5, "non-ASCII character outside a string or comment")]


@pytest.mark.parametrize("src,col,message", [
    ("a ? b", 3, "unexpected character '?'"),
    ("a = 1; b = 2", 6, "unexpected character ';'"),
    ("x = `y", 5, "unexpected character '`'"),
    ("x = a ~ b", 7, "unexpected character '~'"),
    ("x = a \\", 7, "unexpected character '\\'"),
    ("x = a\rb", 6, "unexpected character U+000D"),
    ("x = a\x0cb", 6, "unexpected character U+000C"),
])
def test_unexpected_character(src, col, message):
    assert errors(src + "\n") == [(1, col, message)]


def test_backslash_continuation_hint():
    assert one_error("x = 1 + \\\n  2\n").hint == "there is no line continuation; break lines inside ( ), [ ] or { }"


def test_bracket_errors():
    assert errors("f(a]\n") == [(1, 4, "']' does not match '(' opened at 1:2")]
    assert errors("x)\n") == [(1, 2, "unmatched ')'")]
    assert errors("def f(a,\n    b\nmain\n") == [(1, 6, "'(' was never closed")]
    assert errors("x = [(1,\n") == [(1, 5, "'[' was never closed"), (1, 6, "'(' was never closed")]


def test_mismatched_bracket_resyncs():
    toks, d = lex("f(a]\nif b\n    c\n")
    assert len(d.items) == 1
    assert T.INDENT in [t.kind for t in toks]


def test_errors_on_several_lines_all_reported():
    src = "a = 'xy'\nb = 12abc\nc = \"\\q\"\nd = ?\n  e\n"
    assert errors(src) == [
        (1, 5, "character literal must be one byte"),
        (2, 5, "invalid number literal '12abc'"),
        (3, 6, "invalid escape sequence '\\q'"),
        (4, 5, "unexpected character '?'"),
    ]


def test_error_limit_raises_compile_error():
    with pytest.raises(CompileError):
        lex("?\n" * 30)


def test_diagnostic_render():
    d = Diagnostics()
    tokenize("def f()\n\tif x\n\t\ty\n      z\n", "r.nv", d)
    assert d.render_all() == ("r.nv:4:7: error: inconsistent dedent\n"
                              "      z\n"
                              "      ^\n"
                              "hint: indent it 0, 4 or 8 columns, as an enclosing block is\n")


# -- seeds -----------------------------------------------------------------------------------------------------

SEED_FILES = sorted(glob.glob(os.path.join(SEEDS, "*.nv")))
EXPECT_ERRORS = {"nr-07-dataloader-methods-b.nv", "08-training-step.nv"}


@pytest.mark.parametrize("path", [p for p in SEED_FILES if os.path.basename(p) not in EXPECT_ERRORS],
                         ids=os.path.basename)
def test_seed_lexes_cleanly(path):
    toks = ok(open(path, encoding="utf-8").read())
    ks = [t.kind for t in toks]
    assert ks.count(T.INDENT) == ks.count(T.DEDENT)


def test_seed_08_without_its_elision_line():
    # README: 08 is checked without its leading `...` line; verbatim, that line (12 spaces) sets a base
    # column that the following lines (10 spaces) are below.
    text = open(os.path.join(seeds_or_skip(), "08-training-step.nv"), encoding="utf-8").read()
    ok(text.split("\n", 1)[1])
    assert errors(text)[0] == (2, 11, "indentation below the file's base column")


def test_seed_nr07_gives_located_diagnostic():
    text = open(os.path.join(seeds_or_skip(), "nr-07-dataloader-methods-b.nv"), encoding="utf-8").read()
    toks, d = lex(text)
    assert [(x.span.line, x.span.col, x.message) for x in d.items] == [
        (24, 1, "indentation below the file's base column")]
    assert toks[-1].kind is T.EOF


# -- robustness and speed --------------------------------------------------------------------------------------

_ALPHABET = list("ab f_0159xe.+-<>=!/|()[]{}:,'\"\\#$@ \t\n\r") + ["\ufeff", "é", "{{", "}}", "\\u{", "0x", "\r\n"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_ALPHABET), max_size=60).map("".join))
def test_never_raises_and_stream_is_well_formed(src):
    d = Diagnostics()
    try:
        toks = tokenize(src, "fz.nv", d)
    except CompileError:
        assert len(d.items) >= 20
        return
    ks = [t.kind for t in toks]
    assert ks[-1] is T.EOF and ks.count(T.EOF) == 1
    assert ks.count(T.INDENT) == ks.count(T.DEDENT)
    depth = 0
    for k in ks:
        depth += (k is T.INDENT) - (k is T.DEDENT)
        assert depth >= 0
    for t in toks:
        assert t.span.line >= 1 and t.span.col >= 1


def test_speed_is_linear():
    unit = open(os.path.join(seeds_or_skip(), "09-adamw.nv")).read()
    small, big = unit * 20, unit * 200
    def run(src):
        t = time.perf_counter()
        ok(src)
        return time.perf_counter() - t
    run(small)
    assert run(big) < 30 * run(small) + 0.5


@pytest.mark.slow
def test_speed_100k_lines():
    unit = open(os.path.join(seeds_or_skip(), "09-adamw.nv")).read()
    src = unit * (100_000 // unit.count("\n"))
    t = time.perf_counter()
    ok(src)
    assert time.perf_counter() - t < 3.0


def test_seed_folder_is_present():
    """The seeds beside the repository (../shared/seeds) feed the tests above."""
    seeds_or_skip()
    assert SEED_FILES, f"no seed programs found in {SEEDS}"
