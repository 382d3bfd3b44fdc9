"""Stress tests of threads and channels (LANGUAGE.md 9.5, 9.6): Neve programs generated into a
temporary folder and run with `nsm run`. Every run has the deadlock detector on (it always is),
so a lost wake-up shows as a `deadlock` report or a timeout rather than a wrong answer.

- MPMC: 8 producers and 8 consumers move tagged values (each value is sent once, by one
  producer) through one channel; the consumers count every value they receive in a per-value
  array and compute a sum and an xor digest, so every value must arrive exactly once.
  1,000,000 values through channels of capacity 1, 4 and 1024; 100,000 values 5 times.
- Close racing with sends: producers loop `while ch.send(v)`; the consumer that takes the
  target-th item closes the channel while producers are sending and others receive. Every send
  that returned true must be received exactly once (`for v in ch` drains what was buffered), and
  no send that returned false may deliver.

The default run takes about 25 s on 2 cores; larger repetitions are marked slow.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from programs_runner import nsm_command  # noqa: E402

TIMEOUT_S = 300

MPMC = """\
class Done
    int producers

def void produce(channel<int> ch, int p, int per, int nprod)
    int base = p * per
    [0..per] i
        ch <- base + i
    bool last = false
    lock "done"
        $Done.producers += 1
        last = $Done.producers == nprod
    if last
        ch.close()

def void consume(channel<int> ch, array<int> counts, channel<int> sums, channel<int> xors,
        channel<int> ns)
    int s = 0
    int x = 0
    int n = 0
    for v in ch
        counts[v] += 1
        s += v
        x = x xor (v * 7919 + 13)
        n += 1
    sums <- s
    xors <- x
    ns <- n

def str run(int nprod, int ncons, int total, int cap)
    $Done.producers = 0
    int per = total // nprod
    total = per * nprod
    channel<int> ch = new channel<int>(cap)
    array<int> counts = zeros_int(total)
    channel<int> sums = new channel<int>(ncons)
    channel<int> xors = new channel<int>(ncons)
    channel<int> ns = new channel<int>(ncons)
    finish
        asyncs ncons consume(ch, counts, sums, xors, ns)
        asyncs nprod produce(ch, tid, per, nprod)
    int xall = 0
    [0..ncons] k
        int x <- xors
        xall = xall xor x
    int bad = 0
    int want_x = 0
    [0..total] v
        if counts[v] != 1
            bad += 1
        want_x = want_x xor (v * 7919 + 13)
    return f"n={ns.sum()} sum={sums.sum()} xor_ok={xall == want_x} bad={bad}"

main
    array<str> a = argv()
    [0..to_int(a[5])] r
        print(run(to_int(a[1]), to_int(a[2]), to_int(a[3]), to_int(a[4])))
"""

CLOSE_RACE = """\
class Shared
    int received

def void produce(channel<int> ch, int p, int stride, array<int> sent)
    int i = 0
    while i < stride and ch.send(p * stride + i)
        i += 1
    sent[p] = i

def void consume(channel<int> ch, int target, array<int> counts)
    for v in ch
        counts[v] += 1
        bool close_now = false
        lock "recv"
            $Shared.received += 1
            close_now = $Shared.received == target
        if close_now
            ch.close()

def str run(int nprod, int ncons, int target, int cap)
    $Shared.received = 0
    int stride = 2 * target + cap
    channel<int> ch = new channel<int>(cap)
    array<int> sent = zeros_int(nprod)
    array<int> counts = zeros_int(nprod * stride)
    finish
        asyncs ncons consume(ch, target, counts)
        asyncs nprod produce(ch, tid, stride, sent)
    int got = 0
    int bad = 0
    [0..nprod] p
        if sent[p] >= stride
            bad += 1
        [0..stride] i
            int c = counts[p * stride + i]
            got += c
            if i < sent[p] and c != 1
                bad += 1
            if i >= sent[p] and c != 0
                bad += 1
    return f"delivered={got == sent.sum()} reached={got >= target} bad={bad} closed={not ch.alive()}"

main
    array<str> a = argv()
    [0..to_int(a[5])] r
        print(run(to_int(a[1]), to_int(a[2]), to_int(a[3]), to_int(a[4])))
"""


def _run(tmp_path: Path, name: str, text: str, args: list[int]) -> list[str]:
    src = tmp_path / name
    src.write_text(text)
    cp = subprocess.run(nsm_command() + ["run", src.name] + [str(a) for a in args], cwd=tmp_path,
                        env=dict(os.environ), capture_output=True, text=True, timeout=TIMEOUT_S)
    detail = f"exit status {cp.returncode}\n---- stdout ----\n{cp.stdout}\n---- stderr ----\n{cp.stderr}"
    assert cp.returncode == 0 and cp.stderr == "", detail
    return cp.stdout.splitlines()


def _mpmc(tmp_path: Path, total: int, cap: int, reps: int) -> None:
    lines = _run(tmp_path, "mpmc.nv", MPMC, [8, 8, total, cap, reps])
    want = f"n={total} sum={total * (total - 1) // 2} xor_ok=true bad=0"
    assert lines == [want] * reps


def _close_race(tmp_path: Path, target: int, cap: int, reps: int) -> None:
    lines = _run(tmp_path, "close_race.nv", CLOSE_RACE, [8, 8, target, cap, reps])
    assert lines == ["delivered=true reached=true bad=0 closed=true"] * reps


@pytest.mark.parametrize("cap", [1, 4, 1024])
def test_mpmc_million_values(tmp_path: Path, cap: int) -> None:
    _mpmc(tmp_path, 1_000_000, cap, 1)


@pytest.mark.parametrize("cap", [1, 4, 1024])
def test_mpmc_repeated(tmp_path: Path, cap: int) -> None:
    _mpmc(tmp_path, 100_000, cap, 5)


@pytest.mark.parametrize("cap", [1, 4, 1024])
def test_close_races_with_sends(tmp_path: Path, cap: int) -> None:
    _close_race(tmp_path, 100_000, cap, 5)


@pytest.mark.slow
@pytest.mark.parametrize("cap", [1, 4, 1024])
def test_mpmc_million_values_repeated(tmp_path: Path, cap: int) -> None:
    _mpmc(tmp_path, 1_000_000, cap, 10)


@pytest.mark.slow
@pytest.mark.parametrize("cap", [1, 4, 1024])
def test_close_races_with_sends_repeated(tmp_path: Path, cap: int) -> None:
    _close_race(tmp_path, 1_000_000, cap, 10)
