"""Threads, finish, split arguments, locks, channels and deadlock detection (LANGUAGE.md 9).

tests/runtime/c/conc.cpp drives the runtime's C ABI as compiled Neve code would (thread bodies
taking a collected env, frames pushed by hand); its first argument picks a scenario. The same
program, with the thread and channel sources of the runtime, is also built with
-fsanitize=thread against plain malloc (tests/runtime/tsan/malloc_alloc.cpp) and must run with
no ThreadSanitizer report (no suppressions).

Default run: about 25 s on 2 cores; `-m slow` adds longer stress runs.
"""
from __future__ import annotations

import os
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from nsm import paths
from nsm.build import runtime as rtbuild

HERE = Path(__file__).parent
C_DIR = HERE / "c"
PROG = C_DIR / "conc.cpp"


@pytest.fixture(scope="module")
def conc(tmp_path_factory) -> Path:
    rt = rtbuild.ensure_runtime()
    target = tmp_path_factory.mktemp("conc") / "conc"
    cmd = ["gcc", "-O1", "-g", "-Wall", "-I", str(rt.include), "-I", str(C_DIR), str(PROG),
           str(rt.lib), *rt.link_args, "-o", str(target)]
    p = subprocess.run(cmd, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return target


def run(exe: Path, *args: str, timeout: float = 120, env: dict | None = None):
    return subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})})


# ------------------------------------------------------------------ one program, no errors

BASIC = """
finish waited for 12 threads
tids 4 104 204 304
main tid 0 tN 1
seeded threads reproducible 1 distinct 1
> [0, 1, 2] [3, 4, 5] [6, 7] [8, 9]
: [0, 4, 8] [1, 5, 9] [2, 6] [3, 7]
small [0] [1] [] []
nil splits 0 0 1
locks 160000 80000
<channel<int> size=3>
nil
fifo 1 2 size 1 alive 1
closed: try_send 0 size 2 alive 1
drain 3 4 then 0 0 alive 0
sum 4 1.75 0.20000000000000001 0 sizes 0 0
wrapped 4950 left 3 size after sum 0
tuples (1, one) (2, two)
ping-pong 2000 then 7
blocked receiver cpu < 1% (got 42)
""".lstrip("\n")


def test_threads_locks_channels(conc):
    """finish waits for nested threads (an inner finish for its own); tid/tN in spawn order;
    split chunks; re-entrant named and object locks; FIFO, printing, close, try_send, receive
    on a closed channel, sum (wrapping i8, float, f64, empty), ring wrap-around, tuple items;
    no false deadlock while threads sleep or ping-pong; a blocked receiver uses < 1% CPU."""
    p = run(conc, "basic")
    assert (p.returncode, p.stdout) == (0, BASIC), p.stderr


@pytest.mark.parametrize("mode, stdout, stderr", [
    ("neg_count", "",
     "conc.nv:14:9: runtime error: asyncs with negative count -1\n  at main (conc.nv:14:9)\n"),
    ("lock_nil", "",
     "conc.nv:14:9: runtime error: lock on nil object\n  at main (conc.nv:14:9)\n"),
    ("send_closed", "",
     "conc.nv:14:9: runtime error: send on closed channel\n  at main (conc.nv:14:9)\n"),
    # blocked in a send (full channel) when the channel is closed
    ("close_blocked_send", "",
     "conc.nv:5:5: runtime error: send on closed channel\n  at worker (conc.nv:5:5)\n"
     "in thread tid=3 started at conc.nv:11:5\n"),
    ("thread_error", "",
     "conc.nv:5:9: runtime error: integer division by zero\n  at worker (conc.nv:5:9)\n"
     "in thread tid=2 started at stats.nv:30:9\n"),
])
def test_runtime_errors(conc, mode, stdout, stderr):
    p = run(conc, mode)
    assert (p.returncode, p.stdout, p.stderr) == (1, stdout, stderr)


def test_stack_overflow_in_thread(conc):
    p = run(conc, "thread_overflow")
    assert p.returncode == 1, f"died with {p.returncode}"
    lines = p.stderr.splitlines()
    assert lines[0] == "conc.nv:3:12: runtime error: stack overflow"
    assert lines[-1] == "in thread tid=1 started at deep.nv:9:5"


def test_try_send_unblocks_on_close(conc):
    # ch.send(v) blocked on a full channel returns false when it closes; the buffered item is
    # still received, then the zero value
    p = run(conc, "close_blocked_try_send")
    assert (p.returncode, p.stdout, p.stderr) == (0, "try_send 0 recv 1 1 0 0\n", "")


HANDOFF = """
parked receiver got 1 2 (2 ok), handed over 1
parked sender: received 1 2, send done 1, completed for it 1, size 0
closed with parked receivers: ok 0 0 0, values 0 0 0
closed with parked senders: sends 0 0 0, then recv 1 7 0 0, completed for them 0
4x4 pausing: received 120000 sum 1800060000 (want 1800060000), hand-offs > 0
""".lstrip("\n")


def test_handoff_to_parked_threads(conc):
    """A send to a parked receiver hands the item over (the buffer stays free for the next one);
    a receive from a full channel completes a parked sender's send; closing wakes parked
    receivers (false, zero value) and fails parked senders' sends (the buffered item stays);
    4 producers and 4 consumers that pause in turn move an exact sum through capacity 1."""
    p = run(conc, "handoff", timeout=60)
    assert (p.returncode, p.stdout, p.stderr) == (0, HANDOFF, "")


def test_detached_threads_are_abandoned(conc):
    # a spawn'ed thread blocked forever and one still sleeping do not keep the program alive
    p = run(conc, "detached", timeout=20)
    assert (p.returncode, p.stdout, p.stderr) == (0, "main done\n", "")


# ------------------------------------------------------------------ deadlock detection (9.6)

DL = "runtime error: deadlock: all threads are blocked"
DEADLOCKS = {
    # main receives with nobody to send
    "dl_recv": ("before\n", [
        f"conc.nv:14:9: {DL}",
        "  main (tid 0): receive on channel at conc.nv:14:9"]),
    # a full channel with no receiver
    "dl_send_full": ("", [
        f"conc.nv:15:5: {DL}",
        "  main (tid 0): send on channel at conc.nv:15:5"]),
    # a finish waiting for threads that are blocked
    "dl_finish": ("", [
        f"conc.nv:20:5: {DL}",
        "  main (tid 0): waiting for threads at the end of finish at conc.nv:20:5",
        "  thread tid 2 (asyncs at conc.nv:11:5): receive on channel at conc.nv:5:5",
        "  thread tid 0 (async at conc.nv:12:5): send on channel at conc.nv:5:5"]),
    # two threads each holding the lock the other wants
    "dl_locks": ("", [
        f"conc.nv:20:5: {DL}",
        "  main (tid 0): waiting for threads at the end of finish at conc.nv:20:5",
        '  thread tid 0 (asyncs at conc.nv:11:5): waiting for lock "b" at conc.nv:8:9',
        '  thread tid 1 (asyncs at conc.nv:11:5): waiting for lock "a" at conc.nv:8:9']),
    "dl_obj_lock": ("", [
        f"conc.nv:20:5: {DL}",
        "  main (tid 0): waiting for threads at the end of finish at conc.nv:20:5",
        "  thread tid 0 (async at conc.nv:11:5): waiting for the lock of an object at conc.nv:12:3"]),
    # main returned: nv_finish waits without a frame, so the report has no location
    "dl_main_end": ("", [
        DL,
        "  main (tid 0): waiting for threads at the end of main",
        "  thread tid 0 (async at conc.nv:11:5): receive on channel at conc.nv:5:5"]),
    # nv_main_wait at the end of main's body, its frame still pushed
    "dl_main_wait": ("", [
        f"conc.nv:40:1: {DL}",
        "  main (tid 0): waiting for threads at the end of main at conc.nv:40:1",
        "  thread tid 0 (async at conc.nv:11:5): receive on channel at conc.nv:5:5"]),
    # detached threads are user threads too
    "dl_spawn": ("", [
        f"conc.nv:14:9: {DL}",
        "  main (tid 0): receive on channel at conc.nv:14:9",
        "  thread tid 0 (spawn at conc.nv:9:1): receive on channel at conc.nv:5:5"]),
    # after an item handed to a parked receiver, it and main wait for ever: reported exactly
    "dl_after_handoff": ("", [
        f"conc.nv:14:9: {DL}",
        "  main (tid 0): receive on channel at conc.nv:14:9",
        "  thread tid 0 (async at conc.nv:11:5): receive on channel at conc.nv:6:5"]),
    # the deadlock appears when the last running thread ends
    "dl_exit": ("", [
        f"conc.nv:14:9: {DL}",
        "  main (tid 0): receive on channel at conc.nv:14:9"]),
}


@pytest.mark.parametrize("mode", list(DEADLOCKS))
def test_deadlock_report(conc, mode):
    stdout, lines = DEADLOCKS[mode]
    p = run(conc, mode, timeout=30)
    assert (p.returncode, p.stdout) == (1, stdout), p.stderr
    assert p.stderr.splitlines() == lines


# ------------------------------------------------------------------ stress

def test_stress_million(conc):
    # 8 producers, 8 consumers, 1,000,000 tagged values through capacities 1, 4 and 1024:
    # every value received exactly once and in order per producer
    p = run(conc, "stress", "1000000", "1")
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines() == [f"stress cap={c} 8x8 values=1000000 ok" for c in (1, 4, 1024)]


def test_stress_repeated(conc):
    p = run(conc, "stress", "100000", "5")
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines() == [f"stress cap={c} 8x8 values=100000 ok"
                                     for _ in range(5) for c in (1, 4, 1024)]


def test_close_and_sum_race_with_sends(conc):
    # producers loop `while ch.send(v)` while the owner closes: accepted values arrive once,
    # refused ones never; sum() racing with senders and receivers removes whole batches
    p = run(conc, "close_race", "3")
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines() == (
        [f"close race cap={c} ok" for _ in range(3) for c in (1, 4, 1024)]
        + [f"sum race cap={c} ok" for _ in range(3) for c in (1, 16, 1024)])


@pytest.mark.slow
def test_stress_long(conc):
    p = run(conc, "stress", "1000000", "5", timeout=900)
    assert p.returncode == 0, p.stderr
    p = run(conc, "close_race", "30", timeout=900)
    assert p.returncode == 0, p.stderr


# ------------------------------------------------------------------ ThreadSanitizer

# The runtime sources the TSan build compiles: the concurrency concerns whole, and the pieces
# they call (errors and their report, stdout, random seeds, arrays for split chunks, the str
# hash that strings cache).
TSAN_SOURCES = ["thread/*.cpp", "channel/*.cpp", "error/*.cpp", "fmt/stdout.cpp", "fmt/buf.cpp",
                "num/convert.cpp", "types/primitives.cpp", "random/rng.cpp", "str/core.cpp",
                "array/core.cpp", "map/hash.cpp"]
TSAN_FLAGS = ["-std=c++17", "-fsanitize=thread", "-O1", "-g", "-DNV_TSAN"]


def _tsan_supported(tmp: Path) -> bool:
    src = tmp / "probe.cpp"
    src.write_text("int main() { return 0; }\n")
    p = subprocess.run(["g++", "-fsanitize=thread", str(src), "-o", str(tmp / "probe")],
                       capture_output=True)
    if p.returncode != 0:
        return False
    p = subprocess.run([str(tmp / "probe")], capture_output=True, text=True)
    return p.returncode == 0


@pytest.fixture(scope="module")
def conc_tsan(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("tsan")
    if not _tsan_supported(tmp):
        if os.environ.get("CI") == "true":
            pytest.fail("g++ cannot build or run -fsanitize=thread programs")
        pytest.skip("g++ has no working ThreadSanitizer here")
    src = paths.runtime_src_dir()
    files = sorted({f for pat in TSAN_SOURCES for f in src.glob(pat)})
    files += [HERE / "tsan" / "malloc_alloc.cpp", PROG]
    inc = ["-I", str(src / "include"), "-iquote", str(src), "-I", str(C_DIR)]

    def compile_one(i_f):
        i, f = i_f
        obj = tmp / f"{i:02d}_{f.stem}.o"
        p = subprocess.run(["g++", *TSAN_FLAGS, *inc, "-c", str(f), "-o", str(obj)],
                           capture_output=True, text=True)
        assert p.returncode == 0, f"{f}:\n{p.stderr}"
        assert "Wtsan" not in p.stderr, p.stderr   # e.g. fences TSan cannot model
        return obj

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        objs = list(pool.map(compile_one, enumerate(files)))
    target = tmp / "conc_tsan"
    p = subprocess.run(["g++", "-fsanitize=thread", *map(str, objs), "-lpthread", "-lm",
                        "-o", str(target)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return target


def run_tsan(exe: Path, *args: str, timeout: float = 300):
    # halt_on_error: the first report fails the run; no suppressions
    return run(exe, *args, timeout=timeout,
               env={"TSAN_OPTIONS": "halt_on_error=1 exitcode=66 report_signal_unsafe=0"})


@pytest.mark.parametrize("args", [
    ("basic",),
    ("stress", "20000", "1"),
    ("close_race", "1"),
    ("handoff",),
])
def test_tsan_clean(conc_tsan, args):
    p = run_tsan(conc_tsan, *args)
    assert "ThreadSanitizer" not in p.stderr, p.stderr
    assert p.returncode == 0, p.stderr


@pytest.mark.parametrize("mode", ["dl_finish", "dl_locks", "dl_exit", "dl_after_handoff",
                                  "close_blocked_send",
                                  "close_blocked_try_send"])
def test_tsan_clean_errors(conc_tsan, mode):
    p = run_tsan(conc_tsan, mode, timeout=60)
    assert "ThreadSanitizer" not in p.stderr, p.stderr
    if mode in DEADLOCKS:
        assert (p.returncode, p.stderr.splitlines()) == (1, DEADLOCKS[mode][1])
    elif mode == "close_blocked_send":
        assert p.returncode == 1
        assert p.stderr.startswith("conc.nv:5:5: runtime error: send on closed channel\n")
    else:
        assert (p.returncode, p.stdout) == (0, "try_send 0 recv 1 1 0 0\n"), p.stderr


@pytest.mark.slow
def test_tsan_stress_long(conc_tsan):
    p = run_tsan(conc_tsan, "stress", "100000", "3", timeout=1800)
    assert "ThreadSanitizer" not in p.stderr, p.stderr
    assert p.returncode == 0, p.stderr
