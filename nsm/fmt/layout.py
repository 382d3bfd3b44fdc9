"""The canonical layout of a Neve file, from the compiler's tokens: 4-space indentation (blocks,
and one more level per open bracket on continuation lines), one space around binary operators
and after commas, none inside brackets, blank lines between definitions, a trailing comma when a
multi-line list closes on its own line, and every comment kept as written."""
from __future__ import annotations

from dataclasses import dataclass

from compiler.parser.expressions import carg_close
from compiler.tokens import T, TYPE_KEYWORDS

INDENT = "    "
OPEN = {"(": ")", "[": "]", "{": "}"}
CLOSE = {")", "]", "}"}
BINARY = {"+", "-", "*", "/", "//", "%", "/|", "@", "&", "|", "<<", ">>", "<|", "|>", "==", "!=",
          "<=", ">=", "<-", "=", "+=", "-=", "*=", "/=", "//=", "%="}
AMBIGUOUS = {"<", ">", ">>"}       # comparisons or type-argument brackets: spacing kept as written
VALUE_KW = {"true", "false", "nil", "self", "super"}
DEF_KW = {"def", "class", "ctor", "kernel", "gpu", "main"}
HEADER_KW = {"def", "ctor", "kernel", "gpu", "proto"}


@dataclass
class Line:
    """One output line: `kind` code, comment or blank; `level` its block level."""
    kind: str
    level: int = 0
    text: str = ""
    comment: str = ""
    comment_col: int = -1          # the spaces before the trailing comment as written
    first: bool = False            # the first line of a logical line
    is_def: bool = False           # ... that starts a definition block
    opens: bool = False            # the last line of a header: a block follows


def _visual(s: str) -> int:
    """The width of leading whitespace, a tab counting to the next multiple of 4."""
    w = 0
    for ch in s:
        if ch == " ":
            w += 1
        elif ch == "\t":
            w += 4 - w % 4
        else:
            break
    return w


def _is_value_end(t) -> bool:
    """Whether `t` can end an operand (so a following +/- is binary)."""
    if t is None:
        return False
    if t.kind in (T.NAME, T.INT, T.FLOAT, T.CHAR, T.STRING, T.FSTRING):
        return True
    if t.kind is T.KW:
        return t.text in VALUE_KW or t.text in TYPE_KEYWORDS
    return t.text in CLOSE or t.text == "..."


def _written_gap(a, b) -> str:
    return " " if b.span.col > a.span.col + len(a.text) else ""


LITERALS = (T.INT, T.FLOAT, T.STRING, T.CHAR, T.FSTRING)


def comparison(before, op, after) -> bool:
    """Whether `<`/`>` between `before` and `after` surely compares: a type-argument list
    never opens after `)`, `]` or a literal, and never closes after `)` or before a literal
    (it may close after an int: `channel<int, 4>`). A compile-time list opens right after a
    call's `)`, with no space: `f(x)<128>` (docs/phase2.md)."""
    if before is None:
        return False
    if op.text == "<":
        if before.is_op(")") and _written_gap(before, op) == "":
            return False
        return before.is_op(")", "]") or before.kind in LITERALS
    return before.is_op(")") or before.kind in LITERALS and before.kind is not T.INT or \
        after is not None and after.kind in LITERALS


def glued(toks) -> set[int]:
    """The ids of the tokens written with no space before them in compile-time lists
    `f(x)<128>` and `f(x)<-3 + n>`: the opening `<` or `<-`, the `-` of a `<-` and the `>`."""
    ids = set()
    for k, t in enumerate(toks):
        j = carg_close(toks, k) if t.is_op("<", "<-") else None
        if j is not None:
            ids |= {id(t), id(toks[j])} | ({id(toks[k + 1])} if t.is_op("<-") else set())
    return ids


def space(prev2, prev, cur, stack: list[str], header: bool, lead=None, compares=(),
          glue=(), split=()) -> str:
    """The spacing between `prev` and `cur` on one line; `stack` holds the open brackets
    (innermost last), `prev2` the token before `prev`, `header` says the line is a def's,
    `lead` is the first token of the logical line, `glue` holds tokens kept against `prev`
    and `split` the `<-` tokens printed as `< -` (a comparison with a negative operand)."""
    p, c = prev.text, cur.text
    if id(cur) in glue:
        return ""
    if id(cur) in split:
        return " "
    if id(prev) in split:
        return " " if cur.is_op("-", "+") else ""
    inner = stack[-1] if stack else None
    if lead is not None and lead.is_kw("import", "from") and "/" in (p, c):
        return ""                                # import frost/nn
    if lead is not None and lead.is_kw("import") and p == "c" and cur.kind is T.STRING and \
            _written_gap(prev, cur) == "":
        return ""                                # import c"zlib.h" (one token pair, 11.4)
    if lead is not None and lead.is_kw("launch") and not stack and p == "]" and c == "[":
        return " "                               # launch [grid] [block] k(...)
    if c == ",":
        return ""
    if p == ",":
        return "" if c in CLOSE else " "
    if p in OPEN and prev.kind is T.OP or c in CLOSE and cur.kind is T.OP:
        return ""
    if p in (".", "..", "...", "$") and prev.kind is T.OP or \
            c in (".", "..", "...") and cur.kind is T.OP:
        return ""
    if prev2 is not None and prev2.is_kw("reduce", "scan"):
        return " "                               # `xs reduce + * 2`: the fold's operator
    if prev.kind is T.OP and p in (":", ">") and (prev2 is None or prev2.text in ("(", ",")):
        return ""                                # split arguments :x and >x (9.3)
    if prev.kind is T.OP and p in ("-", "+") and not _is_value_end(prev2) and \
            not (prev2 is not None and prev2.is_kw("reduce", "scan")):
        return " " if cur.kind is T.OP and cur.text in ("-", "+") else ""   # unary
    if prev.kind is T.OP and p == "<-" and not _is_value_end(prev2) or prev.is_op("!"):
        return ""
    if cur.kind is T.OP and c == ":":
        return ""
    if prev.kind is T.OP and p == ":":
        return "" if inner == "[" else " "
    if cur.kind is T.OP and c == "{" and (prev.kind is T.NAME or p in (")", "]")):
        return ""                                # an address form v{i, j} (docs/phase2.md)
    if cur.kind is T.OP and c in ("(", "["):
        if prev.kind in (T.NAME, T.STRING, T.FSTRING) or p in (")", "]", "}") or \
                prev.kind is T.KW and (p in TYPE_KEYWORDS or p in ("self", "super", "ctor")):
            return ""
        if prev.kind is T.OP and p in AMBIGUOUS:
            return _written_gap(prev, cur)
        if header and not stack and c == "(":
            return ""                            # `def Vec +(Vec a, Vec b)`, `def bool and(...)`
        return " "
    if prev.kind is T.OP and p in AMBIGUOUS or cur.kind is T.OP and c in AMBIGUOUS:
        return " " if id(prev) in compares or id(cur) in compares else _written_gap(prev, cur)
    return " "


def layout(text: str, tokens: list, arrows: set[int]) -> str:
    """The canonical layout of `text` (which lexes to `tokens` without an error); `arrows` holds
    the ids of the `<-` tokens that are channel operators (arrows.py): any other `<-` outside a
    compile-time list is printed `< -`, as the parser reads it (LANGUAGE.md 2.4)."""
    src = text[1:] if text.startswith("\ufeff") else text
    phys = src.split("\n")
    lines: list[Line] = []
    by_line: dict[int, list] = {}
    level_of: dict[int, int] = {}
    level = 0
    starts_logical: set[int] = set()
    fresh = True
    for t in tokens:
        if t.kind is T.INDENT:
            level += 1
            continue
        if t.kind is T.DEDENT:
            level -= 1
            continue
        if t.kind is T.NEWLINE:
            fresh = True
            continue
        if t.kind is T.EOF:
            break
        by_line.setdefault(t.span.line, []).append(t)
        if fresh:
            starts_logical.add(id(t))
            fresh = False
        level_of[id(t)] = level
    stack: list[list] = []                 # [bracket, saw a top-level comma, may end in one]
    orig_col: dict[int, int] = {}          # block level -> column of its latest code line
    logical_level = 0
    header = False
    lead = None
    for n, raw in enumerate(phys, start=1):
        raw = raw.rstrip("\r")
        toks = by_line.get(n)
        if not toks:
            stripped = raw.strip()
            if not stripped:
                lines.append(Line("blank"))
                continue
            col = _visual(raw)
            if stack:
                lv = logical_level + len(stack)
            else:
                lv = _comment_level(col, lines, orig_col, by_line, n, level_of)
            lines.append(Line("comment", lv, raw.lstrip()))
            continue
        first = toks[0]
        is_first = id(first) in starts_logical
        if is_first:
            logical_level = level_of[id(first)]
            lead = first
            header = first.kind is T.KW and first.text in HEADER_KW
            orig_col[logical_level] = _visual(raw)
            for lv in [k for k in orig_col if k > logical_level]:
                del orig_col[lv]
        depth = len(stack)
        if first.kind is T.OP and first.text in CLOSE and depth:
            depth -= 1
            top = stack[-1]
            if top[1] and top[2] and lines and not _ends_with_comma(lines):
                _add_trailing_comma(lines)
        parts = []
        prev2 = prev = None
        compares = {id(t) for k, t in enumerate(toks) if t.kind is T.OP and t.text in ("<", ">")
                    and comparison(toks[k - 1] if k else None, t,
                                   toks[k + 1] if k + 1 < len(toks) else None)}
        glue = glued(toks)
        compares -= glue
        split = {id(t) for t in toks if t.is_op("<-") and id(t) not in glue | arrows}
        for t in toks:
            if prev is not None:
                parts.append(space(prev2, prev, t, [s[0] for s in stack], header, lead, compares,
                                   glue, split))
            parts.append("< -" if id(t) in split else t.text)
            if t.kind is T.OP and t.text in OPEN:
                # the brackets of a range loop and of launch take no trailing comma
                bare = t.text == "[" and not stack and (lead.is_kw("launch") or lead.is_op("["))
                stack.append([t.text, False, not bare])
            elif t.kind is T.OP and t.text in CLOSE and stack:
                stack.pop()
            elif t.kind is T.OP and t.text == "," and stack:
                stack[-1][1] = True
            prev2, prev = prev, t
        last = toks[-1]
        end = last.span.col - 1 + len(last.text)
        rest = raw[end:]
        comment = rest.lstrip() if rest.strip().startswith("#") else ""     # kept exactly
        ccol = len(rest) - len(rest.lstrip()) if comment else -1              # its gap
        is_def = is_first and first.kind is T.KW and first.text in DEF_KW
        lines.append(Line("code", logical_level + depth, "".join(parts), comment, ccol, is_first,
                          is_def))
    _mark_headers(lines)
    return _render(_blank_lines(lines))


def _comment_level(col: int, lines: list[Line], orig_col: dict[int, int], by_line, n: int,
                   level_of) -> int:
    """The block level of a comment line at column `col`: one of the levels between the code
    lines around it, the deepest whose code starts at or before the comment."""
    prev = next((ln for ln in reversed(lines) if ln.kind == "code"), None)
    nxt = None
    for m in sorted(k for k in by_line if k > n):
        nxt = by_line[m][0]
        break
    lo_hi = []
    if prev is not None:
        lo_hi.append(prev.level)
    next_level = level_of[id(nxt)] if nxt is not None else 0
    lo_hi.append(next_level)
    lo, hi = min(lo_hi), max(lo_hi)
    cols = dict(orig_col)
    if nxt is not None:
        cols[next_level] = nxt.span.col - 1 if next_level not in cols or next_level > (
            prev.level if prev else -1) else cols[next_level]
    best = lo
    for lv in range(lo, hi + 1):
        if lv in cols and cols[lv] <= col:
            best = lv
    return best


def _ends_with_comma(lines: list[Line]) -> bool:
    last = next((ln for ln in reversed(lines) if ln.kind == "code"), None)
    return last is None or last.text.endswith(",") or last.text.endswith(("(", "[", "{"))


def _add_trailing_comma(lines: list[Line]) -> None:
    last = next(ln for ln in reversed(lines) if ln.kind == "code")
    last.text += ","


def _mark_headers(lines: list[Line]) -> None:
    """A code line followed (past comments and blanks) by a deeper first line opens a block."""
    code = [ln for ln in lines if ln.kind == "code"]
    for a, b in zip(code, code[1:]):
        if b.first and b.level > a.level:
            a.opens = True


def _blank_lines(lines: list[Line]) -> list[Line]:
    out: list[Line] = []
    for ln in lines:                          # at most one blank; none after a header or first
        if ln.kind == "blank":
            if not out or out[-1].kind == "blank" or _last_code_opens(out):
                continue
        out.append(ln)
    while out and out[-1].kind == "blank":
        out.pop()
    result: list[Line] = []
    prev_item: dict[int, Line] = {}           # level -> the previous first line at that level
    for ln in out:
        if ln.kind == "code" and ln.first:
            sib = prev_item.get(ln.level)
            if sib is not None and _needs_blank(sib, ln):
                k = len(result)
                while k > 0 and result[k - 1].kind == "comment" and result[k - 1].level == ln.level:
                    k -= 1
                if k > 0 and result[k - 1].kind != "blank":
                    result.insert(k, Line("blank"))
            for lv in [v for v in prev_item if v > ln.level]:
                del prev_item[lv]
            prev_item[ln.level] = ln
            if ln.opens:
                prev_item.pop(ln.level + 1, None)
        result.append(ln)
    return result


def _last_code_opens(out: list[Line]) -> bool:
    last = out[-1]
    return last.kind == "code" and last.opens


def _needs_blank(a: Line, b: Line) -> bool:
    return a.is_def and b.is_def or b.level == 0 and (a.is_def or b.is_def)


def _render(lines: list[Line]) -> str:
    out = []
    for ln in lines:
        if ln.kind == "blank":
            out.append("")
            continue
        text = INDENT * ln.level + ln.text
        if ln.comment:
            text += " " * max(ln.comment_col, 2) + ln.comment
        out.append(text)
    return "\n".join(out) + "\n" if out else ""
