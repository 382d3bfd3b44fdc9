"""Seeded mutations of Neve programs and the worker process that runs them through the front end.

Used by tests/test_fuzz.py. A case is (program, seed): `mutate(text, seed)` turns the program into a
mutant (bytes) deterministically, so a failure is replayed from its program name and seed alone.

Three families of mutation (LANGUAGE.md 2):
- token: delete, duplicate, swap adjacent, replace (biased to a token of the same kind, which mostly
  keeps the program parseable so the checker sees it), insert; edits use the lexer's token spans.
- indent: indent/dedent a line by 1-4 spaces or a tab, delete/duplicate a line, join two lines,
  insert a block header (empty, or with a `pass` body).
- byte: a non-ASCII byte or character, NUL, CRLF/CR line ends, a BOM, truncation.

The worker (`python tests/fuzz_mutations.py worker`) reads one JSON request on stdin and writes JSON
lines on its stdout: `{"start": id}` before each case and `{"done": id, ...}` after it. The parent
(`run_cases`) kills a worker whose case outlives the hard timeout, or that dies by a signal, records
that case, and starts a fresh worker for the rest.
"""
from __future__ import annotations

import faulthandler
import json
import os
import re
import random
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from compiler.diagnostics import Diagnostics  # noqa: E402
from compiler.lexer import tokenize  # noqa: E402
from compiler.tokens import KEYWORDS, OPERATORS, TYPE_KEYWORDS, T  # noqa: E402

# -- token pools ---------------------------------------------------------------------------------------------

INT_POOL = ["0", "1", "2", "7", "42", "1_000_000", "0xFF", "0b1010", "255", "256", "-1", "3"]
INT_EDGE = ["9223372036854775807", "9223372036854775808", "0xFFFF_FFFF_FFFF_FFFF", "0x1_0000_0000_0000_0000",
            "99999999999999999999999"]
FLOAT_POOL = ["0.0", "0.5", "1.0", "2.0e-3", "3e8", "1e308", "3.4e38", "3.5e38"]
FLOAT_EDGE = ["1e309", "1e-400"]
CHAR_POOL = ["'a'", "'\\n'", "'\\x7f'", "'\\0'", "'\\''", "'\\xff'", "' '"]
STRING_POOL = ['""', '"s"', '"tab\\there"', '"\\u{1F600}"', '"\\xff"', '"\\u{10FFFF}"', '"é"', '"a{b}"']
FSTRING_POOL = ['f"{x}"', 'f"{x:.4f}"', 'f"{{}}"', 'f"{1 + 2:>8}"', 'f"v={y:x}"', 'f"{"', 'f"{x:}"',
                'f"{f"{x}"}"', 'f"{}"', 'f"{(}"']
NAME_POOL = ["x", "y", "n", "i", "s", "tid", "tN", "tHW", "print", "printl", "len", "arange_int", "type",
             "sys", "buffer", "T", "Foo", "main2", "_", "min", "max", "sum", "append", "exit", "warp"]
JUNK_POOL = ["1__0", "0x", "1.", "1e", "'ab'", "''", '"\\q"', "`", ";", "\\", "?", "^", "~", '"', "'",
             "0b2", "12abc", "\\u{110000}"]
# Same-kind replacements: (pool, edge cases chosen one time in eight, which mostly fail in the lexer).
SAME_KIND = {
    T.INT: (INT_POOL, INT_EDGE), T.FLOAT: (FLOAT_POOL, FLOAT_EDGE), T.CHAR: (CHAR_POOL, []),
    T.STRING: (STRING_POOL, []), T.FSTRING: (FSTRING_POOL, []),
}
# A keyword or operator in a group's first list may become any token of its second list (same grammar slot).
_SCALARS = "int i8 i16 i32 i64 u8 float f64 bf16 half bool char str any".split()
KW_GROUPS = [
    (_SCALARS, _SCALARS), (["array", "channel"],) * 2, (["true", "false", "nil"],) * 2,
    (["and", "or"], ["and", "or", "xor", "offby"]), (["break", "continue"], ["break", "continue", "pass"]),
    (["async", "spawn"],) * 2, (["reduce", "scan"],) * 2, (["if", "while"],) * 2, (["def", "gpu"],) * 2,
]
_BINARY = "+ - * / // % /| @ & | << >> <| |> xor".split()
OP_GROUPS = [
    (["+", "-"], ["+", "-"]),                     # also unary: keep them among themselves
    ([o for o in _BINARY if o not in ("+", "-", "xor")], _BINARY),
    (["==", "!=", "<=", ">="], ["==", "!=", "<", "<=", ">", ">="]),     # not '<' '>': also type brackets
    ("+= -= *= /= //= %=".split(),) * 2, ([".."], ["..", "..."]), (["..."], ["..", "..."]),
]
ALL_TOKENS = (sorted(KEYWORDS | TYPE_KEYWORDS) + list(OPERATORS) + INT_POOL + INT_EDGE + FLOAT_POOL
              + FLOAT_EDGE + CHAR_POOL + STRING_POOL + FSTRING_POOL + NAME_POOL)
STATEMENT_HEADERS = ["if true", "if x", "while false", "for i in x", "for i=0, 10", "finish", "lock \"m\"",
                     "lock x", "async", "spawn", "[0..4] i", "if 1 < 2"]
TOP_HEADERS = ["def void f()", "def int g(int a)", "class C", "main", "gpu int d(int a)", "kernel void k()"]
BLOCK_HEADERS = ["if true", "if x", "elif false", "else", "else if 1 < 2", "while false", "for i in x",
                 "for i=0, 10", "finish", "def void f()", "def int g(int a)", "class C", "main", "lock \"m\"",
                 "lock x", "async", "spawn", "asyncs 2 f()", "[0..4] i", "ctor()", "kernel void k()",
                 "gpu int d(int a)"]
WEIRD_CHARS = ["\u00e9", "\U0001F600", "\u00a0", "\u2028", "\u2029", "\u0085", "\ufeff", "\x0c", "\x0b",
               "\x1b", "\x7f", "\u201c", "\ud7ff", "\u0301"]

# (family, operation, weight). The weights bias towards mutations that usually still parse, so at least
# half of the mutants reach the checker (test_fuzz asserts it), while every family stays well represented.
OPERATIONS = [
    ("token", "replace_same", 60),
    ("token", "delete", 4), ("token", "duplicate", 4), ("token", "swap", 4),
    ("token", "replace_any", 4), ("token", "insert", 4), ("token", "insert_junk", 2),
    ("indent", "indent", 3), ("indent", "dedent", 3), ("indent", "delete_line", 4),
    ("indent", "duplicate_line", 4), ("indent", "join_lines", 2), ("indent", "empty_header", 2),
    ("indent", "header_with_pass", 4),
    ("byte", "non_ascii_byte", 1), ("byte", "weird_char", 1), ("byte", "nul", 1), ("byte", "crlf", 3),
    ("byte", "lone_cr", 1), ("byte", "bom", 1), ("byte", "truncate", 1),
]


@dataclass
class Mutant:
    data: bytes
    ops: list[str] = field(default_factory=list)       # what was done, in order
    families: list[str] = field(default_factory=list)

    @property
    def family(self) -> str:
        fams = sorted(set(self.families))
        return fams[0] if len(fams) == 1 else "mixed"


# -- mutations ----------------------------------------------------------------------------------------------

class _Quiet(Diagnostics):
    """Diagnostics that drop errors (and never stop at 20): mutating needs the tokens only."""

    def error(self, *args, **kwargs) -> None:
        pass


def _token_ranges(src: str) -> list[tuple[int, int, object]]:
    """(start, end, token) of each token with source text, as offsets into `src` (no BOM)."""
    toks = tokenize(src, "<fuzz>", _Quiet()) if src else []
    starts = [0]
    for i, c in enumerate(src):
        if c == "\n":
            starts.append(i + 1)
    out = []
    for t in toks:
        if not t.text or t.span.line > len(starts):
            continue
        s = starts[t.span.line - 1] + t.span.col - 1
        e = s + len(t.text)
        if src[s:e] == t.text:        # guard against a span convention this helper does not know
            out.append((s, e, t))
    return out


def _same_kind_pool(tok, names: list[str], rng: random.Random | None = None) -> list[str]:
    """Tokens that can stand where `tok` stands (same literal kind, a name, the same keyword or operator
    group); with `rng`, literal pools sometimes give their edge cases instead."""
    if tok.kind is T.NAME:
        pool = names + NAME_POOL
        if rng is not None and rng.random() < 0.7:
            pool = names                  # mostly a name the program already uses
        return [x for x in pool if x != tok.text] or [x for x in NAME_POOL if x != tok.text]
    if tok.kind in SAME_KIND:
        common, edge = SAME_KIND[tok.kind]
        pool = edge if edge and rng is not None and rng.random() < 0.125 else common
    else:
        groups = KW_GROUPS if tok.kind is T.KW else OP_GROUPS if tok.kind is T.OP else []
        pool = [x for src, dst in groups if tok.text in src for x in dst]
    return [x for x in pool if x != tok.text]


def _token_op(src: str, op: str, rng: random.Random) -> tuple[str, str] | None:
    toks = _token_ranges(src)
    names = sorted({x.text for _, _, x in toks if x.kind is T.NAME})
    if op == "replace_same":          # only tokens that have a same-kind alternative
        toks = [x for x in toks if _same_kind_pool(x[2], names)]
    if not toks:
        return None
    i = rng.randrange(len(toks))
    s, e, t = toks[i]
    where = f"{t.span.line}:{t.span.col}"
    if op == "delete":
        return src[:s] + src[e:], f"delete {t.text!r} at {where}"
    if op == "duplicate":
        return src[:e] + " " + t.text + src[e:], f"duplicate {t.text!r} at {where}"
    if op == "swap":
        if i + 1 >= len(toks):
            return None
        s2, e2, t2 = toks[i + 1]
        return (src[:s] + t2.text + src[e:s2] + t.text + src[e2:],
                f"swap {t.text!r} and {t2.text!r} at {where}")
    if op in ("replace_same", "replace_any"):
        pool = _same_kind_pool(t, names, rng) if op == "replace_same" else ALL_TOKENS
        new = rng.choice([x for x in pool if x != t.text] or ALL_TOKENS)
        return src[:s] + new + src[e:], f"{op} {t.text!r} -> {new!r} at {where}"
    if op in ("insert", "insert_junk"):
        new = rng.choice(JUNK_POOL if op == "insert_junk" else ALL_TOKENS)
        at = s if rng.random() < 0.5 else e
        return src[:at] + " " + new + " " + src[at:], f"{op} {new!r} near {where}"
    raise ValueError(op)


def _base(lines: list[str]) -> int:
    """Width of the first code line's indentation (2.2's base column, counting a tab as 4)."""
    for ln in lines:
        if ln.strip() and not ln.lstrip().startswith("#"):
            return len(ln[:len(ln) - len(ln.lstrip(" \t"))].expandtabs(4))
    return 0


def _indent_op(src: str, op: str, rng: random.Random) -> tuple[str, str] | None:
    lines = src.split("\n")
    code = [i for i, ln in enumerate(lines) if ln.strip()]
    if not code:
        return None
    i = rng.choice(code)
    ln = lines[i]
    what = f"line {i + 1}"
    if op == "indent":
        pad = rng.choice([" ", "  ", "   ", "    ", "\t"])
        lines[i] = pad + ln
        what = f"indent {what} by {pad!r}"
    elif op == "dedent":
        k = rng.randint(1, 4)
        lead = len(ln) - len(ln.lstrip(" \t"))
        if lead == 0:
            return None
        lines[i] = ln[min(k, lead):]
        what = f"dedent {what} by {min(k, lead)}"
    elif op == "delete_line":
        del lines[i]
        what = f"delete {what}"
    elif op == "duplicate_line":
        lines.insert(i, ln)
        what = f"duplicate {what}"
    elif op == "join_lines":
        if i + 1 >= len(lines):
            return None
        lines[i:i + 2] = [ln + " " + lines[i + 1].lstrip(" \t")]
        what = f"join {what} with the next"
    elif op in ("empty_header", "header_with_pass"):
        lead = ln[:len(ln) - len(ln.lstrip(" \t"))]
        if op == "empty_header":
            header = rng.choice(BLOCK_HEADERS)
        else:                             # a header that fits where it goes, so the result may still parse
            header = rng.choice(STATEMENT_HEADERS if len(lead.expandtabs(4)) > _base(lines) else TOP_HEADERS)
        new = [lead + header]
        if op == "header_with_pass":
            new.append(lead + "    " + rng.choice(["pass", "pass", "...", "x = 1", "print(1)"]))
        lines[i:i] = new
        what = f"{op} {header!r} before {what}"
    else:
        raise ValueError(op)
    return "\n".join(lines), what


def _byte_op(data: bytes, op: str, rng: random.Random) -> tuple[bytes, str] | None:
    at = rng.randint(0, len(data))
    if op == "non_ascii_byte":
        b = rng.randint(0x80, 0xFF)
        return data[:at] + bytes([b]) + data[at:], f"insert byte 0x{b:02x} at {at}"
    if op == "weird_char":
        c = rng.choice(WEIRD_CHARS)
        return data[:at] + c.encode("utf-8", "surrogatepass") + data[at:], f"insert {c!r} at {at}"
    if op == "nul":
        return data[:at] + b"\0" + data[at:], f"insert NUL at {at}"
    if op == "crlf":
        lines = data.split(b"\n")
        p = rng.choice([0.3, 1.0])
        data = b"\n".join(ln + b"\r" if i < len(lines) - 1 and rng.random() < p else ln
                          for i, ln in enumerate(lines))
        return data, f"CRLF on {'all' if p == 1.0 else 'some'} lines"
    if op == "lone_cr":
        nls = [i for i, b in enumerate(data) if b == 10]
        if not nls:
            return None
        j = rng.choice(nls)
        return data[:j] + b"\r" + data[j + 1:], f"LF at {j} -> CR"
    if op == "bom":
        return b"\xef\xbb\xbf" + data, "leading BOM"
    if op == "truncate":
        return data[:at], f"truncate at {at}"
    raise ValueError(op)


def mutate(text: str, seed: int) -> Mutant:
    """The mutant of `text` for `seed`: one mutation most of the time, sometimes two or three stacked."""
    rng = random.Random(seed)
    data = text.encode("utf-8")
    m = Mutant(data)
    count = rng.choices([1, 2, 3], weights=[85, 12, 3])[0]
    ops = [(f, o) for f, o, _ in OPERATIONS]
    weights = [w for _, _, w in OPERATIONS]
    for _ in range(count):
        for _attempt in range(50):
            fam, op = rng.choices(ops, weights=weights)[0]
            if fam == "byte":
                r = _byte_op(m.data, op, rng)
            else:
                try:
                    src = m.data.decode("utf-8")
                except UnicodeDecodeError:
                    continue      # a byte mutation broke UTF-8: only byte mutations apply now
                bom = "\ufeff" if src.startswith("\ufeff") else ""
                r = _token_op(src[len(bom):], op, rng) if fam == "token" else _indent_op(src[len(bom):], op, rng)
                if r is not None:
                    r = ((bom + r[0]).encode("utf-8", "surrogatepass"), r[1])
            if r is not None and r[0] != m.data:
                m.data = r[0]
                m.ops.append(f"{fam}.{r[1]}")
                m.families.append(fam)
                break
    return m


# -- running one case (inside the worker) -------------------------------------------------------------------

class CaseTimeout(BaseException):
    """Raised by the per-case alarm. A BaseException, so the driver's `except Exception` cannot swallow it."""


def _on_alarm(signum, frame):
    raise CaseTimeout()


def _stages(path: str) -> None:
    """The stages compile_file(check_only=True) runs (the driver's own run_stages), without its
    exception boundary, so an internal error shows its whole traceback."""
    from compiler import driver
    from compiler.diagnostics import CompileError
    from nsm.build.orchestrate import import_map_for
    try:
        driver.run_stages(path, import_map_for(Path(path)), driver.Result(False, Diagnostics()),
                          check_only=True)
    except CompileError:
        pass


def signature_of(tb: traceback.StackSummary | list, exc_type: str) -> str:
    """A crash's identity: exception type and the innermost frame inside compiler/ (else the innermost)."""
    frames = [fr for fr in tb if Path(fr.filename).name != "fuzz_mutations.py"] or list(tb)
    pick = None
    for fr in reversed(frames):
        if f"{os.sep}compiler{os.sep}" in fr.filename:
            pick = fr
            break
    pick = pick or (frames[-1] if frames else None)
    if pick is None:
        return exc_type
    return f"{exc_type} at {Path(pick.filename).name}:{pick.lineno} in {pick.name}"


def _format_tb(e: BaseException) -> tuple[str, str]:
    tb = traceback.extract_tb(e.__traceback__)
    text = "".join(traceback.format_exception(type(e), e, e.__traceback__))
    return text, signature_of(tb, type(e).__name__)


def run_case(data: bytes, path: Path, timeout: float) -> dict:
    """Run one mutant through compile_file(check_only=True); classify the outcome.

    status: ok (exit 0 or 1), ice (exit 3), exception (escaped compile_file), timeout, silent (exit 1 with
    no diagnostic), bad_exit (any other exit code). `checked` says whether the checker ran.
    """
    from nsm.build.orchestrate import whole_program as compile_file
    path.write_bytes(data)
    _REACHED[0] = False
    out: dict = {"status": "ok", "checked": False}
    signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    # If the alarm cannot interrupt (a long call in C), leave the stack on stderr before the parent kills us.
    faulthandler.dump_traceback_later(1.5 * timeout + 1, exit=False)
    t0 = time.perf_counter()
    try:
        try:
            res = compile_file(str(path), check_only=True)
            res.diags.render_all()
            out["exit"] = res.exit_code
            if res.exit_code == 3:
                out["status"] = "ice"
                out["message"] = "; ".join(d.message for d in res.diags.items
                                           if "internal compiler error" in d.message)
                try:
                    _stages(str(path))
                    out["signature"] = "ICE " + out["message"]
                    out["traceback"] = "(not reproduced outside compile_file)\n"
                except CaseTimeout:
                    raise
                except BaseException as e:  # noqa: BLE001 - what we are looking for
                    out["traceback"], out["signature"] = _format_tb(e)
            elif res.exit_code == 1 and not res.diags.items:
                out["status"] = "silent"
                out["signature"] = "exit 1 without a diagnostic"
            elif res.exit_code not in (0, 1):
                out["status"] = "bad_exit"
                out["signature"] = f"exit code {res.exit_code}"
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            faulthandler.cancel_dump_traceback_later()
    except CaseTimeout as e:
        out["status"] = "timeout"
        out["traceback"], sig = _format_tb(e)
        out["signature"] = "timeout " + sig.split(" at ", 1)[-1]
    except BaseException as e:  # noqa: BLE001 - anything escaping the driver boundary is a failure
        out["status"] = "exception"
        out["traceback"], out["signature"] = _format_tb(e)
    out["checked"] = _REACHED[0]
    out["ms"] = round((time.perf_counter() - t0) * 1000, 2)
    return out


_REACHED = [False]          # set by the wrapped Checker.check: this case got through lexing and parsing


def _instrument_checker() -> None:
    """Count checker runs: wrap Checker.check (the driver imports the class at call time)."""
    from compiler.check.checker import Checker
    original = Checker.check
    if getattr(original, "_fuzz_wrapped", False):
        return

    def check(self, *a, **kw):
        _REACHED[0] = True
        return original(self, *a, **kw)
    check._fuzz_wrapped = True
    Checker.check = check


def worker_main() -> None:
    """Worker: request {"corpus": [[name, text]...], "cases": [[id, program, seed]...], "timeout": s}."""
    faulthandler.enable()                  # a hard crash leaves its Python traceback on stderr
    proto = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)                          # anything the compiler prints goes to stderr, not the protocol
    sys.stdout = sys.stderr
    req = json.loads(sys.stdin.readline())
    corpus = dict(req["corpus"])
    _instrument_checker()
    with tempfile.TemporaryDirectory(prefix="neve-fuzz-") as tmp:
        path = Path(tmp) / "mutant.nv"
        if req.get("mode") == "minimize":
            src = minimize(req["data"].encode("latin-1"), req["signature"], path, req["timeout"],
                           req.get("budget_s", 10.0))
            proto.write(json.dumps({"minimized": src.decode("latin-1")}) + "\n")
            return
        for cid, prog, seed in req["cases"]:
            proto.write(json.dumps({"start": cid}) + "\n")
            try:
                if isinstance(seed, int):
                    m = mutate(corpus[prog], seed)
                    data, family = m.data, m.family
                else:
                    data, family = corpus[prog].encode("utf-8"), "none"
            except Exception as e:  # noqa: BLE001 - a bug in this file (or in the lexer it uses)
                tb, sig = _format_tb(e)
                proto.write(json.dumps({"done": cid, "status": "harness_error", "checked": False,
                                        "signature": "mutating failed: " + sig, "traceback": tb}) + "\n")
                continue
            r = run_case(data, path, req["timeout"])
            r["done"] = cid
            r["family"] = family
            proto.write(json.dumps(r) + "\n")


# -- minimising a crash -------------------------------------------------------------------------------------

def _split_units(data: bytes, level: str) -> list[bytes]:
    if level == "lines":
        return data.splitlines(keepends=True)
    units, cur = [], b""
    for b in data:                      # words and single punctuation bytes, whitespace kept with them
        ch = bytes([b])
        if ch.isalnum() or ch == b"_":
            cur += ch
            continue
        if cur:
            units.append(cur)
            cur = b""
        units.append(ch)
    if cur:
        units.append(cur)
    return units


def minimize(data: bytes, signature: str, path: Path, timeout: float, budget_s: float) -> bytes:
    """Delta debugging (ddmin) over lines, then over words and bytes, keeping the crash `signature`."""
    deadline = time.monotonic() + budget_s

    def fails(candidate: bytes) -> bool:
        r = run_case(candidate, path, timeout)
        return r.get("signature") == signature

    if not fails(data):
        return data
    for level in ("lines", "words", "lines", "words"):
        units = _split_units(data, level)
        n = 2
        while len(units) >= 2 and time.monotonic() < deadline:
            chunk = max(1, len(units) // n)
            reduced = False
            for start in range(0, len(units), chunk):
                if time.monotonic() >= deadline:
                    break
                cand = units[:start] + units[start + chunk:]
                if cand and fails(b"".join(cand)):
                    units = cand
                    n = max(n - 1, 2)
                    reduced = True
                    break
            if not reduced:
                if chunk == 1:
                    break
                n = min(len(units), n * 2)
        data = b"".join(units)
    return data


# -- the parent side ----------------------------------------------------------------------------------------

WORKER = [sys.executable, "-u", str(Path(__file__).resolve()), "worker"]


def _env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("PYTHONHASHSEED", None)
    env["PYTHONHASHSEED"] = "0"                 # set iteration order inside the compiler is reproducible
    return env


def _drive(corpus: list[tuple[str, str]], cases: list[tuple], timeout: float, hard: float,
           results: dict, log: list) -> None:
    """Run `cases` in one worker at a time; on a hang or a killed worker, record the case, go on."""
    todo = list(cases)
    while todo:
        with tempfile.TemporaryFile() as err:
            proc = subprocess.Popen(WORKER, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err,
                                    env=_env(), cwd=str(REPO))
            req = {"corpus": corpus, "cases": todo, "timeout": timeout}
            proc.stdin.write((json.dumps(req) + "\n").encode())
            proc.stdin.close()
            fd = proc.stdout.fileno()
            buf = b""
            current, started = None, time.monotonic()
            broken = None
            while True:
                left = hard - (time.monotonic() - started) if current is not None else hard * 4
                ready, _, _ = select.select([fd], [], [], max(0.0, left))
                if not ready:
                    broken = "timeout"
                    proc.kill()
                    proc.wait()
                    break
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    rc = proc.wait()
                    if current is not None or any(c[0] not in results for c in todo):
                        broken = f"signal {-rc}" if rc < 0 else f"worker exit {rc}"
                    break
                buf += chunk
                while b"\n" in buf:
                    line, buf = buf.split(b"\n", 1)
                    msg = json.loads(line)
                    if "start" in msg:
                        current, started = msg["start"], time.monotonic()
                    else:
                        results[msg["done"]] = msg
                        current = None
            if broken is None:
                return
            err.seek(0)
            tail = err.read()[-4000:].decode("utf-8", "replace")
            if current is None:              # died between cases (or before the first): give up loudly
                current = next(c[0] for c in todo if c[0] not in results)
            status = "timeout" if broken == "timeout" else "signal"
            where = _fault_frame(tail)
            results[current] = {"done": current, "status": status, "checked": False,
                                "signature": (f"{broken} (worker killed)" if status == "timeout" else broken)
                                + (f" at {where}" if where else ""),
                                "traceback": tail}
            log.append(f"case {current}: {broken}; worker restarted")
            todo = [c for c in todo if c[0] not in results]


def _fault_frame(text: str) -> str | None:
    """The innermost compiler frame of a faulthandler dump ('File "...", line N in f', innermost first)."""
    for m in re.finditer(r'File "([^"]+)", line (\d+) in (\S+)', text):
        if f"{os.sep}compiler{os.sep}" in m.group(1):
            return f"{Path(m.group(1)).name}:{m.group(2)} in {m.group(3)}"
    return None


def run_cases(corpus: list[tuple[str, str]], cases: list[tuple[int, str, int]], *, workers: int = 2,
              timeout: float = 10.0) -> tuple[dict, list]:
    """Run (id, program name, seed) cases over `workers` processes; returns ({id: result}, log lines).

    A seed of None runs the program unmutated. Per case: `timeout` seconds as an in-worker alarm (with a
    traceback of where it hung), and twice that plus 5 s as a hard limit after which the worker is killed.
    """
    results: dict = {}
    log: list = []
    shards = [cases[k::workers] for k in range(workers)]
    threads = [threading.Thread(target=_drive, args=(corpus, s, timeout, 2 * timeout + 5, results, log))
               for s in shards if s]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results, log


def minimize_crash(data: bytes, signature: str, *, timeout: float = 10.0, budget_s: float = 10.0) -> bytes:
    """Shrink a crashing mutant in a worker process (a hang or a hard crash cannot kill the caller)."""
    req = {"mode": "minimize", "corpus": [], "data": data.decode("latin-1"), "signature": signature,
           "timeout": timeout, "budget_s": budget_s}
    try:
        p = subprocess.run(WORKER, input=(json.dumps(req) + "\n").encode(), capture_output=True,
                           env=_env(), cwd=str(REPO), timeout=budget_s + 2 * timeout + 10)
        for line in p.stdout.decode().splitlines():
            msg = json.loads(line)
            if "minimized" in msg:
                return msg["minimized"].encode("latin-1")
    except (subprocess.TimeoutExpired, ValueError):
        pass
    return data


if __name__ == "__main__":
    if sys.argv[1:2] == ["worker"]:
        worker_main()
    else:
        sys.exit("usage: fuzz_mutations.py worker  (driven by tests/test_fuzz.py; to replay a case run "
                 "python tests/test_fuzz.py --replay NAME SEED)")
