"""A Pygments lexer for Neve, for the site's ```neve blocks, from the word table that also
generates the editor grammars (editors/generate.py)."""
from __future__ import annotations

import sys
from pathlib import Path

from pygments.lexer import RegexLexer, bygroups, include, words
from pygments.token import (Comment, Keyword, Name, Number, Operator, Punctuation, String,
                            Text, Whitespace)

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "editors"))
import generate  # noqa: E402

_T = generate.table()
__all__ = ["NeveLexer"]          # what Pygments loads from this module


class NeveLexer(RegexLexer):
    name = "Neve"
    aliases = ["neve"]
    filenames = ["*.nv"]

    tokens = {
        "root": [
            (r"\s+", Whitespace),
            (r"#.*$", Comment.Single),
            (r'f"', String.Interpol, "fstring"),
            (r'"', String.Double, "string"),
            (r"'(\\x[0-9A-Fa-f]{2}|\\.|[^'\\])'", String.Char),
            (r"0x[0-9A-Fa-f](_?[0-9A-Fa-f])*\b", Number.Hex),
            (r"0b[01](_?[01])*\b", Number.Bin),
            (r"[0-9](_?[0-9])*(\.[0-9](_?[0-9])*([eE][+-]?[0-9](_?[0-9])*)?|[eE][+-]?[0-9](_?[0-9])*)\b",
             Number.Float),
            (r"[0-9](_?[0-9])*\b", Number.Integer),
            (r"(\$)([A-Za-z_]\w*)", bygroups(Operator, Name.Variable.Global)),
            (r"(\.)([A-Za-z_]\w*)", bygroups(Punctuation, Name.Attribute)),
            (r"(def)(\s+)", bygroups(Keyword.Declaration, Whitespace)),
            (r"(class)(\s+)([A-Za-z_]\w*)", bygroups(Keyword.Declaration, Whitespace, Name.Class)),
            (words(_T["control"] + _T["operator"] + _T["import"], suffix=r"\b"), Keyword),
            (words(_T["declaration"], suffix=r"\b"), Keyword.Declaration),
            (words(_T["constant"], suffix=r"\b"), Keyword.Constant),
            (words(_T["self"] + _T["predeclared"], suffix=r"\b"), Name.Builtin.Pseudo),
            (words(_T["type"], suffix=r"\b"), Keyword.Type),
            (words(_T["kernel_function"] + _T["builtin_function"], suffix=r"\b"), Name.Builtin),
            (words(_T["kernel_variable"], suffix=r"\b"), Name.Builtin.Pseudo),
            (r"[A-Za-z_]\w*(?=\s*\()", Name.Function),
            (r"[A-Za-z_]\w*", Name),
            (r"<-|\.\.\.?|//=?|/\||<<|>>|<\||\|>|[-+*/%]=|==|!=|<=|>=|[-+*/%@&|<>!=]", Operator),
            (r"[()\[\]{},:]", Punctuation),
        ],
        "escape": [
            (r"\\([ntr0\\\"']|x[0-9A-Fa-f]{2}|u\{[0-9A-Fa-f]{1,6}\})", String.Escape),
        ],
        "string": [
            include("escape"),
            (r'"', String.Double, "#pop"),
            (r'[^"\\\n]+', String.Double),
            (r"\n", Text, "#pop"),
            (r"\\", String.Double),
        ],
        "fstring": [
            include("escape"),
            (r"\{\{|\}\}", String.Escape),
            (r"\{[^{}\"]*\}", String.Interpol),
            (r'"', String.Interpol, "#pop"),
            (r'[^"\\{}\n]+', String.Interpol),
            (r"\n", Text, "#pop"),
            (r"[\\{}]", String.Interpol),
        ],
    }


def register() -> None:
    """Make `neve` known to Pygments in this process (no package entry point needed)."""
    from pygments.lexers import _mapping, LEXERS
    entry = (__name__, "Neve", ("neve",), ("*.nv",), ())
    LEXERS["NeveLexer"] = entry
    _mapping.LEXERS["NeveLexer"] = entry
