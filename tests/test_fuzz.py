"""Fuzz test of the front end (lexer, parser, checker): seeded mutations of the golden programs.

Every tests/programs/**/*.nv, every seed in the shared seeds folder and the small programs below are
mutated (tests/fuzz_mutations.py: token, indentation and byte mutations) and run through
compile_file(check_only=True) in worker processes, each case under a timeout. Compile errors are the
expected outcome for most mutants; a case fails on an internal compiler error (exit status 3), a Python
exception escaping the driver, a timeout or a worker killed by a signal (LANGUAGE.md 13.1: bad input never
yields a traceback). At least half of the mutants must get through lexing and parsing to the checker, so
the checker is fuzzed too.

Failures print the program name, seed, mutations and mutated source; replay one with

    python tests/test_fuzz.py --replay NAME SEED

Knobs (environment): NEVE_FUZZ_CASES (default 1500), NEVE_FUZZ_WORKERS (default 2),
NEVE_FUZZ_TIMEOUT (seconds per case, default 10), NEVE_FUZZ_SEED (base seed, default 0x5EED).
"""
from __future__ import annotations

import os
import signal
import sys
import time
import traceback
from collections import Counter, defaultdict
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fuzz_mutations as fm  # noqa: E402

TESTS = Path(__file__).resolve().parent
PROGRAMS = TESTS / "programs"
SEEDS = TESTS.parents[1] / "shared" / "seeds"      # <repo>/../shared/seeds (LANGUAGE.md Appendix C)

CASES = int(os.environ.get("NEVE_FUZZ_CASES", "1500"))
WORKERS = int(os.environ.get("NEVE_FUZZ_WORKERS", "2"))
TIMEOUT = float(os.environ.get("NEVE_FUZZ_TIMEOUT", "10"))
BASE_SEED = int(os.environ.get("NEVE_FUZZ_SEED", str(0x5EED)), 0)
MIN_MUTATIONS = 1000
# Bigger programs (the generated ones of tests/programs/limits/) run once unmutated but are not mutated:
# each run costs a large part of a second, and their few distinct constructs are in the small programs too.
MAX_MUTATE_BYTES = 16_000
MINIMIZE_BUDGET_S = 5.0       # per distinct crash
MINIMIZE_AT_MOST = 8          # distinct crashes to minimise; the rest show their smallest mutant

# Small programs, so the test has a corpus even before the golden programs exist. Each is valid Neve
# (LANGUAGE.md; the checker need not support all of it yet: reaching it is what counts).
BUILTIN_PROGRAMS = {
    "builtin:arith": """\
def int add(int a, int b)
    return a + b

main
    int x = add(2, 3) * 4 - 1
    float y = 2.5 / 0.5
    i32 k = 7
    if x > 10 and not (y < 1.0)
        print("big ", x)
    elif x == 0
        print("zero")
    else
        print(x // 2, x % 3)
    print(f"x={x} y={y:.2f}")
""",
    "builtin:loops": """\
main
    array<int> xs = [1, 2, 3, 4]
    int total = 0
    for v in xs
        if v == 3
            continue
        total += v
    for i=0, 10, 2
        total -= i
    while total > 0
        total = total // 2
        if total < 3
            break
    [0..3] j
        print(j)
    print(total, len(xs))
""",
    "builtin:class": """\
class Account
    int balance
    str owner

    ctor(str who)
        self.owner = who
        self.balance = 0

    def void deposit(int n)
        self.balance += n

    def int get()
        return self.balance

main
    Account a = new Account("ann")
    a.deposit(10)
    a.deposit(5)
    print(a.owner, " has ", a.get())
""",
    "builtin:generic": """\
def T first<T>(array<T> xs)
    return xs[0]

def float mean(array<float> xs)
    float s = 0.0
    for x in xs
        s += x
    return s / float(len(xs))

main
    array<float> v = [1.0, 2.0, 4.5]
    print(mean(v), first(v))
    map<str, int> m = {"a": 1, "b": 2}
    char c = 'z'
    bool ok = true
    print(m["a"], c, ok, 0xFF, 0b1010, 1_000)
""",
    "builtin:nested": """\
def int fib(int n)
    if n < 2
        return n
    return fib(n - 1) + fib(n - 2)

def void show(array<int> xs, str label)
    for i in xs
        if i % 2 == 0
            if i > 4
                print(label, i)
            else
                pass
        else
            print(-i)

main
    array<int> r = arange_int(0, 10)
    show(r, "even")
    print(fib(10))
""",
}


def build_corpus() -> list[tuple[str, str]]:
    """(name, text) of every program to mutate, in a fixed order: golden programs, seeds, built-ins."""
    corpus = []
    for p in sorted(PROGRAMS.rglob("*.nv")) if PROGRAMS.is_dir() else []:
        if "build" in p.relative_to(PROGRAMS).parts[:-1]:
            continue                  # a package's generated bindings, present after a run
        corpus.append((f"programs/{p.relative_to(PROGRAMS).as_posix()}", p.read_text("utf-8")))
    if not SEEDS.is_dir() and os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"seeds folder {SEEDS} is missing (CI=true)")
    for p in sorted(SEEDS.glob("*.nv")) if SEEDS.is_dir() else []:   # else: said in the summary
        corpus.append((f"seeds/{p.name}", p.read_text("utf-8")))
    corpus.extend(BUILTIN_PROGRAMS.items())
    return corpus


def mutant_cases(corpus: list[tuple[str, str]], checked: dict[str, bool]) -> list[tuple[int, str, int]]:
    """CASES (id, program, seed) mutants, round robin over the corpus, where a program that reaches the
    checker unmutated takes three turns and one stopped by the lexer or parser (the golden programs for
    lexical and syntax errors) one: that keeps most mutants parseable, so the checker is fuzzed too.
    Programs over MAX_MUTATE_BYTES take none."""
    turns = [name for name, text in corpus if len(text.encode("utf-8")) <= MAX_MUTATE_BYTES
             for _ in range(3 if checked.get(name) else 1)]
    return [(i, turns[i % len(turns)], BASE_SEED * 1_000_000 + i) for i in range(CASES)]


FAILING = ("ice", "exception", "timeout", "signal", "silent", "bad_exit", "harness_error")


def _source_of(corpus: dict, name: str, seed: int | None) -> tuple[bytes, list[str]]:
    if seed is None:
        return corpus[name].encode("utf-8"), ["(unmutated)"]
    m = fm.mutate(corpus[name], seed)
    return m.data, m.ops


def _show(data: bytes, max_lines: int = 60, max_cols: int = 160) -> str:
    """Numbered lines; a line with a control or non-printable character is shown as a Python literal.
    Long lines and long sources are cut (the replay command prints them whole)."""
    text = data.decode("utf-8", "backslashreplace")
    out = []
    lines = text.split("\n")
    for i, ln in enumerate(lines[:max_lines], 1):
        shown = ln if ln.isprintable() else repr(ln)
        if len(shown) > max_cols:
            shown = shown[:max_cols] + f" ... ({len(shown) - max_cols} more characters)"
        out.append(f"    {i:3} | {shown}\n")
    if len(lines) > max_lines:
        out.append(f"    ... {len(lines) - max_lines} more lines\n")
    return "".join(out)


def _last_frames(tb: str, n: int = 7) -> str:
    lines = [ln for ln in (tb or "").rstrip().splitlines() if ln.strip()]
    return "\n".join("      " + ln for ln in lines[-n:])


@pytest.fixture(scope="module")
def fuzz_run():
    corpus = build_corpus()
    t0 = time.perf_counter()
    originals = [(-1 - k, name, None) for k, (name, _) in enumerate(corpus)]
    results, log = fm.run_cases(corpus, originals, workers=WORKERS, timeout=TIMEOUT)
    checked = {name: bool(results.get(cid, {}).get("checked")) for cid, name, _ in originals}
    mutants = mutant_cases(corpus, checked)
    more, log2 = fm.run_cases(corpus, mutants, workers=WORKERS, timeout=TIMEOUT)
    results.update(more)
    log += log2
    cases = originals + mutants
    elapsed = time.perf_counter() - t0
    by_name = dict(corpus)
    missing = [c for c in cases if c[0] not in results]
    reached = sum(1 for c in mutants if results.get(c[0], {}).get("checked"))
    fam = Counter()
    fam_reached = Counter()
    for cid, name, seed in mutants:
        f = results.get(cid, {}).get("family", "?")
        fam[f] += 1
        fam_reached[f] += bool(results.get(cid, {}).get("checked"))
    failures = [(c, results[c[0]]) for c in cases if c[0] in results and results[c[0]]["status"] in FAILING]
    originals_reached = sum(checked.values())
    summary = (f"fuzz: {len(mutants)} mutants of {len(corpus)} programs "
               f"({', '.join(f'{k} {v} ({fam_reached[k]} checked)' for k, v in sorted(fam.items()))}); "
               f"reached the checker: {reached}/{len(mutants)} ({100 * reached / max(1, len(mutants)):.1f}%); "
               f"unmutated programs reaching it: {originals_reached}/{len(corpus)}; "
               f"failures: {len(failures)}; {elapsed:.1f} s on {WORKERS} workers"
               + ("" if SEEDS.is_dir() else f"; seed corpus absent ({SEEDS} missing)"))
    return {"corpus": by_name, "cases": cases, "results": results, "log": log, "mutants": len(mutants),
            "reached": reached, "failures": failures, "missing": missing, "summary": summary,
            "elapsed": elapsed}


def test_fuzz_reaches_checker(fuzz_run, capsys):
    with capsys.disabled():
        print("\n" + fuzz_run["summary"])
    assert not fuzz_run["missing"], f"cases without a result: {fuzz_run['missing'][:10]}"
    assert fuzz_run["mutants"] >= MIN_MUTATIONS, fuzz_run["summary"]
    assert 2 * fuzz_run["reached"] >= fuzz_run["mutants"], \
        "fewer than half of the mutants reached the checker: " + fuzz_run["summary"]


def test_fuzz_front_end_does_not_crash(fuzz_run):
    failures = fuzz_run["failures"]
    if not failures:
        return
    corpus = fuzz_run["corpus"]
    groups: dict[str, list] = defaultdict(list)
    for (cid, name, seed), r in failures:
        data, ops = _source_of(corpus, name, seed)
        groups[f"[{r['status']}] {r.get('signature', '?')}"].append((len(data), name, seed, ops, data, r))
    report = [fuzz_run["summary"], *fuzz_run["log"], f"{len(groups)} distinct failures:", ""]
    for k, (sig, items) in enumerate(sorted(groups.items(), key=lambda kv: -len(kv[1]))):
        items.sort(key=lambda it: it[0])
        size, name, seed, ops, data, r = items[0]
        report.append(f"=== {sig}  ({len(items)} cases)")
        report.append(f"  smallest: {name} seed {seed}: {'; '.join(ops)}"
                      f"   (replay: python tests/test_fuzz.py --replay {name} {seed})")
        report.append("  mutated source:")
        report.append(_show(data).rstrip("\n"))
        if r["status"] in ("ice", "exception", "silent", "bad_exit") and k < MINIMIZE_AT_MOST:
            small = fm.minimize_crash(data, r.get("signature", ""), timeout=TIMEOUT, budget_s=MINIMIZE_BUDGET_S)
            if small != data:
                report.append("  minimal reproducer:")
                report.append(_show(small).rstrip("\n"))
        if r.get("message"):
            report.append(f"  diagnostic: {r['message']}")
        report.append("  traceback (last lines):")
        report.append(_last_frames(r.get("traceback", "")))
        others = ", ".join(f"{n}@{s}" for _, n, s, *_ in items[1:12])
        if others:
            report.append(f"  also: {others}{' ...' if len(items) > 12 else ''}")
        report.append("")
    text = "\n".join(report)
    pytest.fail(f"the front end crashed on {len(failures)} of {len(fuzz_run['cases'])} cases "
                f"({len(groups)} distinct)\n\n{text}", pytrace=False)


# -- limits (LANGUAGE.md 13.1), in-process -------------------------------------------------------------------

def _chain() -> str:
    return "main\n    int x = " + " + ".join(["1"] * 100_000) + "\n    print(x)\n"


def _parens() -> str:
    return "main\n    int x = " + "(" * 300 + "1" + ")" * 300 + "\n    print(x)\n"


def _blocks() -> str:
    body = "".join("    " * d + "if true\n" for d in range(1, 301))
    return "main\n" + body + "    " * 301 + "pass\n"


def _long_string() -> str:
    return 'main\n    str s = "' + "a" * 1_000_000 + '"\n    print(len(s))\n'


class _LimitTimeout(BaseException):
    pass


@pytest.mark.parametrize("make", [_chain, _parens, _blocks, _long_string],
                         ids=["chain-100000-terms", "parens-300-deep", "blocks-300-deep", "string-1MB"])
def test_limits_give_a_clean_result(make, tmp_path):
    from nsm.build.orchestrate import whole_program as compile_file
    path = tmp_path / "limit.nv"
    path.write_text(make(), "utf-8")

    def on_alarm(signum, frame):
        raise _LimitTimeout()
    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, 60)
    t0 = time.perf_counter()
    try:
        res = compile_file(str(path), check_only=True)
    except _LimitTimeout:
        pytest.fail("no result within 60 s:\n" + traceback.format_exc(limit=-8))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    elapsed = time.perf_counter() - t0
    first = res.diags.items[0].message if res.diags.items else "(no diagnostic)"
    if res.exit_code == 3:
        try:
            fm._stages(str(path))
            where = "(not reproduced outside compile_file)"
        except BaseException as e:  # noqa: BLE001 - the internal error, for the report
            where = _last_frames("".join(traceback.format_exception(type(e), e, e.__traceback__)), 9)
        pytest.fail(f"internal compiler error after {elapsed:.2f} s: {first}\n{where}", pytrace=False)
    assert res.exit_code in (0, 1), \
        f"exit status {res.exit_code} after {elapsed:.2f} s: {first}\n{res.diags.render_all()[:2000]}"
    assert res.exit_code == 0 or res.diags.items, "exit status 1 without a diagnostic"


# -- replay -------------------------------------------------------------------------------------------------

def replay(name: str, seed: str) -> int:
    """Print the mutant of (name, seed), run it through the front end in-process, show the outcome."""
    corpus = dict(build_corpus())
    if name not in corpus:
        print(f"unknown program {name!r}; known: {', '.join(sorted(corpus))}")
        return 2
    data, ops = _source_of(corpus, name, None if seed == "None" else int(seed, 0))
    print(f"{name} seed {seed}: {'; '.join(ops)}\n{_show(data)}")
    import tempfile
    from nsm.build.orchestrate import whole_program as compile_file
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "mutant.nv"
        path.write_bytes(data)
        res = compile_file(str(path), check_only=True)
        print(f"exit status {res.exit_code}")
        print(res.diags.render_all())
        if res.exit_code == 3:
            try:
                fm._stages(str(path))
            except BaseException:  # noqa: BLE001
                traceback.print_exc()
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--replay":
        sys.exit(replay(sys.argv[2], sys.argv[3]))
    sys.exit("usage: python tests/test_fuzz.py --replay NAME SEED")
