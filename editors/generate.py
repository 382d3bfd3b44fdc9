"""Writes the VS Code TextMate grammar and the vim syntax file from one table of Neve's words.

The words come from the compiler itself (compiler/tokens.py, compiler/builtins.py), so an editor
never highlights a word the lexer does not reserve. `python editors/generate.py` rewrites
both files; `--check` exits 1 when a checked-in file is out of date (tests/editors runs it).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from compiler import builtins, tokens  # noqa: E402

GRAMMAR = ROOT / "editors/vscode/syntaxes/neve.tmLanguage.json"
VIM = ROOT / "editors/vim/syntax/neve.vim"

# Unsigned widths another change adds to the language; highlighted already so the grammar is ready.
PENDING_TYPES = {"u16", "u32", "u64"}

CONTROL = {"if", "elif", "else", "for", "while", "break", "continue", "return", "pass", "in",
           "finish", "async", "asyncs", "spawn", "lock", "launch"}
OPERATOR_WORDS = {"and", "or", "not", "xor", "offby", "reduce", "scan", "mapit"}
CONSTANTS = {"true", "false", "nil"}
SELF_WORDS = {"self", "super"}
IMPORT_WORDS = {"import", "from", "as"}
DECL_WORDS = {"def", "class", "ctor", "kernel", "gpu", "proto", "main", "var", "new", "layout"}


def table() -> dict[str, list[str]]:
    """Every highlighted word by its group; each reserved word of the lexer is in exactly one."""
    types = set(tokens.TYPE_KEYWORDS) | PENDING_TYPES | {"void"}
    groups = {
        "control": CONTROL, "operator": OPERATOR_WORDS, "constant": CONSTANTS,
        "self": SELF_WORDS, "import": IMPORT_WORDS, "declaration": DECL_WORDS, "type": types,
    }
    placed = set().union(*groups.values())
    missing = (set(tokens.KEYWORDS) | set(tokens.TYPE_KEYWORDS)) - placed
    if missing:
        raise SystemExit(f"editors/generate.py: reserved words in no group: {sorted(missing)}")
    groups["predeclared"] = set(tokens.PREDECLARED)
    groups["kernel_variable"] = set(tokens.KERNEL_PREDECLARED)
    groups["kernel_function"] = (set(builtins.KERNEL_ONLY) | {"atomic_add"}
                                 | set(builtins.PHASE2_INTRINSICS))
    groups["builtin_function"] = (set(builtins.BUILTIN_NAMES) - {"pi", "inf", "nan"}
                                  | set(builtins.HOST_ONLY) | {"isa", "size_of", "zeros", "ones", "exit"})
    return {k: sorted(v) for k, v in groups.items()}


def words(ws: list[str]) -> str:
    # longest first, so `asyncs` is not read as `async` followed by `s`
    return r"\b(?:" + "|".join(sorted(ws, key=lambda w: (-len(w), w))) + r")\b"


NAME = r"[A-Za-z_][A-Za-z0-9_]*"
OPERATOR_NAME = r"//|/\||==|!=|<=|>=|[-+*/%@<>]|and\b|or\b"


def grammar(t: dict[str, list[str]]) -> dict:
    """The TextMate grammar (scope names follow the conventions of VS Code's own grammars)."""
    expr = [
        {"include": "#comment"}, {"include": "#fstring"}, {"include": "#string"},
        {"include": "#char"}, {"include": "#number"}, {"include": "#global"},
        {"include": "#member"}, {"include": "#keywords"}, {"include": "#call"},
        {"include": "#operator"}, {"include": "#punctuation"},
    ]
    repo = {
        "comment": {"match": r"(#).*$", "name": "comment.line.number-sign.neve",
                    "captures": {"1": {"name": "punctuation.definition.comment.neve"}}},
        "escape": {"patterns": [
            {"match": r"\\(?:[ntr0\\\"']|x[0-9A-Fa-f]{2}|u\{[0-9A-Fa-f]{1,6}\})",
             "name": "constant.character.escape.neve"},
            {"match": r"\\.?", "name": "invalid.illegal.escape.neve"},
        ]},
        "string": {"begin": '"', "end": r'"|$', "name": "string.quoted.double.neve",
                   "beginCaptures": {"0": {"name": "punctuation.definition.string.begin.neve"}},
                   "endCaptures": {"0": {"name": "punctuation.definition.string.end.neve"}},
                   "patterns": [{"include": "#escape"}]},
        "fstring": {
            "begin": r'\b(f)(")', "end": r'"|$', "name": "string.interpolated.neve",
            "beginCaptures": {"1": {"name": "storage.type.string.neve"},
                              "2": {"name": "punctuation.definition.string.begin.neve"}},
            "endCaptures": {"0": {"name": "punctuation.definition.string.end.neve"}},
            "patterns": [
                {"match": r"\{\{|\}\}", "name": "constant.character.escape.neve"},
                {"include": "#escape"},
                {"begin": r"\{", "end": r"\}|(?=\"|$)", "name": "meta.interpolation.neve",
                 "contentName": "source.neve",
                 "beginCaptures": {"0": {"name": "punctuation.section.interpolation.begin.neve"}},
                 "endCaptures": {"0": {"name": "punctuation.section.interpolation.end.neve"}},
                 "patterns": [
                     {"match": r"(:)([^}\"]*)(?=\})",
                      "captures": {"1": {"name": "punctuation.separator.format-spec.neve"},
                                   "2": {"name": "constant.other.format-spec.neve"}}},
                     {"include": "#field-expr"},
                 ]},
                {"match": r"\}", "name": "invalid.illegal.brace.neve"},
            ]},
        # an f-string field: an expression without strings of its own nesting further
        "field-expr": {"patterns": [
            {"include": "#char"}, {"include": "#number"}, {"include": "#global"},
            {"include": "#member"}, {"include": "#keywords"}, {"include": "#call"},
            {"begin": r"\(", "end": r"\)|(?=\"|$)", "patterns": [{"include": "#field-expr"},
                                                                 {"include": "#string"}]},
            {"begin": r"\[", "end": r"\]|(?=\"|$)", "patterns": [{"include": "#field-expr"},
                                                                 {"include": "#string"}]},
            {"include": "#operator"},
        ]},
        "char": {"match": r"(')(?:\\(?:x[0-9A-Fa-f]{2}|.)|[^'\\])(')", "name": "string.quoted.single.neve",
                 "captures": {"1": {"name": "punctuation.definition.string.begin.neve"},
                              "2": {"name": "punctuation.definition.string.end.neve"}}},
        # as the lexer does: a run of word characters after a digit is one literal, valid or not
        "number": {"patterns": [
            {"match": r"\b0x[0-9A-Fa-f](?:_?[0-9A-Fa-f])*\b", "name": "constant.numeric.hex.neve"},
            {"match": r"\b0b[01](?:_?[01])*\b", "name": "constant.numeric.binary.neve"},
            {"match": r"\b[0-9](?:_?[0-9])*(?:\.[0-9](?:_?[0-9])*(?:[eE][+-]?[0-9](?:_?[0-9])*)?"
                      r"|[eE][+-]?[0-9](?:_?[0-9])*)\b", "name": "constant.numeric.float.neve"},
            {"match": r"\b[0-9](?:_?[0-9])*\b(?!\.[0-9])", "name": "constant.numeric.decimal.neve"},
            {"match": r"\b[0-9][A-Za-z0-9_]*(?:\.[0-9][A-Za-z0-9_]*)?", "name": "invalid.illegal.numeric.neve"},
        ]},
        "global": {"match": rf"(\$)\s*({NAME})",
                   "captures": {"1": {"name": "punctuation.definition.variable.neve"},
                                "2": {"name": "variable.other.global.neve"}}},
        # after '.', type names are ordinary member names (x.float(), 2.3)
        "member": {"patterns": [
            {"match": rf"(\.)\s*({NAME})(?=\s*(?:<[\w\s,<>\[\]]*>)?\s*\()",
             "captures": {"1": {"name": "punctuation.accessor.neve"},
                          "2": {"name": "entity.name.function.member.neve"}}},
            {"match": rf"(\.)\s*({NAME})",
             "captures": {"1": {"name": "punctuation.accessor.neve"},
                          "2": {"name": "variable.other.member.neve"}}},
        ]},
        "keywords": {"patterns": [
            {"match": words(t["control"]), "name": "keyword.control.neve"},
            {"match": words(t["operator"]), "name": "keyword.operator.word.neve"},
            {"match": words(t["import"]), "name": "keyword.control.import.neve"},
            {"match": words(t["declaration"]), "name": "storage.type.neve"},
            {"match": words(t["constant"]), "name": "constant.language.neve"},
            {"match": words(t["self"]), "name": "variable.language.self.neve"},
            {"match": words(t["type"]), "name": "storage.type.primitive.neve"},
            {"match": words(t["predeclared"]), "name": "variable.language.thread.neve"},
            {"match": r"\b(?:pi|inf|nan)\b", "name": "constant.numeric.named.neve"},
        ]},
        "call": {"patterns": [
            {"match": words(t["builtin_function"]) + r"(?=\s*(?:<[\w\s,<>\[\]]*>)?\s*\()",
             "name": "support.function.builtin.neve"},
            {"match": rf"\b{NAME}(?=\s*\()", "name": "entity.name.function.call.neve"},
        ]},
        "kernel-builtins": {"patterns": [
            {"match": words(t["kernel_function"]), "name": "support.function.kernel.neve"},
            {"match": words(t["kernel_variable"]), "name": "variable.language.kernel.neve"},
        ]},
        "operator": {"patterns": [
            {"match": r"<-", "name": "keyword.operator.channel.neve"},
            {"match": r"\.\.\.?", "name": "keyword.operator.range.neve"},
            {"match": r"//=|[-+*/%]=|==|!=|<=|>=", "name": "keyword.operator.neve"},
            {"match": r"//|/\||<<|>>|<\||\|>|[-+*/%@&|<>!=]", "name": "keyword.operator.neve"},
        ]},
        "punctuation": {"patterns": [
            {"match": r",", "name": "punctuation.separator.neve"},
            {"match": r":", "name": "punctuation.separator.colon.neve"},
            {"match": r"[()\[\]{}]", "name": "punctuation.bracket.neve"},
        ]},
        "definition": {"patterns": [
            # def RET NAME(  /  def RET NAME<T, U>(  /  def RET +(  (6.5)
            {"match": rf"\b(def)\s+(.*?)\s*({NAME}|{OPERATOR_NAME})(?=\s*(?:<[\w\s,]*>)?\s*\()",
             "captures": {"1": {"name": "storage.type.function.neve"},
                          "2": {"patterns": expr},
                          "3": {"name": "entity.name.function.neve"}}},
            {"match": rf"\b(class)\s+({NAME})",
             "captures": {"1": {"name": "storage.type.class.neve"},
                          "2": {"name": "entity.name.type.class.neve"}}},
            {"match": rf"^\s*(type)\s+({NAME})\s*(?==)",
             "captures": {"1": {"name": "storage.type.alias.neve"},
                          "2": {"name": "entity.name.type.alias.neve"}}},
        ]},
        # a kernel or gpu function runs to the next line indented no deeper than its header
        # (2.2), and only there are tx, bx, syncthreads(), ... builtins (12.2)
        "kernel-block": {
            "begin": r"^(\s*)(kernel|gpu)\b", "end": r"^(?!\1[ \t]+\S|\s*$)",
            "name": "meta.function.kernel.neve",
            "beginCaptures": {"2": {"name": "storage.type.neve"}},
            "patterns": [{"include": "#definition-kernel"}, {"include": "#kernel-builtins"}] + expr,
        },
        "definition-kernel": {
            "match": rf"\G\s+(.*?)\s*({NAME}|{OPERATOR_NAME})(?=\s*\()",
            "captures": {"1": {"patterns": expr}, "2": {"name": "entity.name.function.neve"}},
        },
    }
    return {
        "$schema": "https://raw.githubusercontent.com/martinring/tmlanguage/master/tmlanguage.json",
        "name": "Neve",
        "scopeName": "source.neve",
        "fileTypes": ["nv"],
        "comment": "Generated by editors/generate.py from the compiler's word tables; do not edit.",
        "patterns": [{"include": "#kernel-block"}, {"include": "#definition"}] + expr,
        "repository": repo,
    }


def vim(t: dict[str, list[str]]) -> str:
    """A vim syntax file with the same groups (vim has no indentation-scoped regions, so the kernel
    builtins are highlighted everywhere)."""
    groups = [
        ("neveStatement", "control", "Statement"), ("neveOperatorWord", "operator", "Operator"),
        ("neveInclude", "import", "Include"), ("neveDeclaration", "declaration", "Keyword"),
        ("neveConstant", "constant", "Boolean"), ("neveSelf", "self", "Special"),
        ("neveType", "type", "Type"), ("nevePredeclared", "predeclared", "Identifier"),
        ("neveKernelVar", "kernel_variable", "Identifier"),
        ("neveKernelFunc", "kernel_function", "Function"),
        ("neveBuiltin", "builtin_function", "Function"),
    ]
    out = ['" Vim syntax file for Neve (.nv).',
           '" Generated by editors/generate.py from the compiler\'s word tables; do not edit.',
           'if exists("b:current_syntax")', "  finish", "endif", ""]
    for group, key, _ in groups:
        ws = t[key]
        for i in range(0, len(ws), 12):
            out.append(f"syn keyword {group} " + " ".join(ws[i:i + 12]))
    out += [
        r'syn match neveComment "#.*$" contains=@Spell',
        r'''syn match neveEscape contained "\\\([ntr0\\"']\|x\x\x\|u{\x\{1,6}}\)"''',
        r'syn region neveString start=+"+ skip=+\\\\\|\\"+ end=+"\|$+ contains=neveEscape',
        r'syn region neveField contained matchgroup=neveFieldBrace start=+{+ end=+}+ contains=neveNumber,neveGlobal,neveType,neveBuiltin',
        r'syn region neveFString start=+\<f"+ skip=+\\\\\|\\"+ end=+"\|$+ contains=neveEscape,neveField',
        r'''syn match neveChar "'\(\\x\x\x\|\\.\|[^'\\]\)'"''',
        r'syn match neveNumber "\<0x\x\(_\=\x\)*\>"',
        r'syn match neveNumber "\<0b[01]\(_\=[01]\)*\>"',
        r'syn match neveNumber "\<\d\(_\=\d\)*\(\.\d\(_\=\d\)*\)\=\([eE][+-]\=\d\(_\=\d\)*\)\=\>"',
        r'syn match neveGlobal "\$\s*\h\w*"',
        r'syn match neveChannel "<-"',
        "",
    ]
    for group, _, link in groups:
        out.append(f"hi def link {group} {link}")
    out += ["hi def link neveComment Comment", "hi def link neveString String",
            "hi def link neveFString String", "hi def link neveChar Character",
            "hi def link neveEscape SpecialChar", "hi def link neveFieldBrace Special",
            "hi def link neveNumber Number", "hi def link neveGlobal Identifier",
            "hi def link neveChannel Operator", "", 'let b:current_syntax = "neve"', ""]
    return "\n".join(out)


def outputs() -> dict[Path, str]:
    t = table()
    return {GRAMMAR: json.dumps(grammar(t), indent=2) + "\n", VIM: vim(t)}


def main(argv: list[str]) -> int:
    stale = []
    for path, text in outputs().items():
        if "--check" in argv:
            if not path.is_file() or path.read_text() != text:
                stale.append(path.relative_to(ROOT))
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    if stale:
        print("out of date (run python editors/generate.py): " + ", ".join(map(str, stale)))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
