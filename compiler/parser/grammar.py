"""Parser tables: the nesting limit, built-in generics, operator levels (4.1) and the token sets that start or end statements and expressions."""
from __future__ import annotations

from ..tokens import TYPE_KEYWORDS, T

MAX_NESTING = 256                      # 13.1: expressions, blocks and type arguments
NESTING_MESSAGE = f"nesting too deep (limit {MAX_NESTING})"

# Generic built-ins: `NAME <` opens type arguments after these (Appendix A, disambiguation 2).
BUILTIN_GENERICS = frozenset(
    "zeros ones buffer device_buffer copy to_buffer to_device to_array size_of isa shared "
    "mma_16x8x16".split())
COMPOSITE_TYPES = frozenset("array map tuple channel Function".split())
OPERATOR_SYMBOLS = frozenset("+ - * / // % @ == != < <= > >= and or".split())

# Binary operators and their level in 4.1 (1 lowest). Level 3 is prefix `not`, 12 prefix `-`/`+`.
_BINARY = {
    "==": 4, "!=": 4, "<": 4, "<=": 4, ">": 4, ">=": 4,
    "|": 6, "&": 8, "<<": 9, ">>": 9, "<|": 9, "|>": 9,
    "+": 10, "-": 10, "*": 11, "/": 11, "//": 11, "%": 11, "/|": 11, "@": 11,
}
_WORD_BINARY = {"or": 1, "and": 2, "offby": 5, "xor": 7}
_CMP_LEVEL = 4
_NOT_LEVEL = 3
_NEG_LEVEL = 12
_NORMALISE = {"<|": "<<", "|>": ">>"}
_COMPOUND = {"+=": "+", "-=": "-", "*=": "*", "/=": "/", "//=": "//", "%=": "%"}
_BLOCK_STATEMENTS = frozenset("if while for finish async spawn asyncs lock launch".split())
_TOP_LEVEL_WORDS = frozenset("def class kernel gpu proto import from main".split())
_EXPR_START_KW = frozenset("true false nil self super new not layout".split()) | TYPE_KEYWORDS
_EXPR_START_OP = frozenset("( [ { $ - + !".split())
from ..prescan import _LINE_END  # noqa: F401 - one definition, shared with the pre-scan
