"""The workloads Neve was made for (issue 24), each side by side with the tool people use today,
in one run, one table of ratios:

    .venv/bin/python bench/workloads/run.py [--reps 3] [--only mcts] [--json out.json]

- mcts: frost/mcts (packages/frost/examples/mcts_play.nv, --release) against the same algorithm in
  C++ (bench/workloads/mcts.cpp, g++ -O2) and CPython (bench/workloads/mcts.py), playouts per
  second at 1 and 2 threads on connect four 5x4 from the empty board and from fixed openings.
  Goals: Neve within 1.3x of C++ (C++/Neve playouts/s <= 1.3) and a 2-thread speed-up >= 1.8.
- bpe: frost/tokenizers (packages/frost/examples/bpe_train.nv, --release) against Hugging Face
  `tokenizers` (Rust) and, for encoding, a tiktoken Encoding built from the merges trained here
  (bench/workloads/bpe_peers.py): seconds to train byte-level BPE (vocabulary 1,000 on the first
  90% of Tiny Shakespeare; 4,000 on the whole text repeated 10 times; min_frequency 2) and to
  encode the validation split (the last 10%), at 1 and 2 threads (RAYON_NUM_THREADS for
  tokenizers). Every run also checks that the merges and the ids equal those of tokenizers.
  Goal: not slower than tokenizers (tokenizers/neve seconds >= 1).
- csv: frost/csv (packages/frost/examples/csv_read.nv, --release) parsing a generated, seeded CSV
  of 1,000,000 rows with quoted fields (commas, doubled quotes and line breaks inside) into
  float32 features, int64 labels and text, at 1 and 2 threads, against pandas.read_csv (C
  engine), pyarrow.csv.read_csv and polars.read_csv on the same file (bench/workloads/
  csv_peers.py, in-process times); and the data-wait fraction of the MNIST MLP's training loop
  fed by frost/csv's Loader (packages/frost/examples/mnist_csv.nv, epoch 2), beside frost/data's
  DataLoader on the IDX files (mnist_mlp.nv). Goals: Neve/pyarrow parse time <= 1.5 at 2 threads;
  data wait < 5%.

Each round runs every implementation once, one after the other, so machine noise falls on all
columns alike; a figure is the median over the rounds.
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import random
import re
import statistics
import subprocess
import sys
from pathlib import Path

from rich.console import Console
from rich.table import Table

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
OUT = REPO / "bench" / "out" / "workloads"
NSM = str(Path(sys.executable).parent / "nsm")
console = Console(stderr=True)

MCTS_GAME = "5x4x4g"
MCTS_OPENINGS = ["", "2", "2 2", "1 3", "2 1 3", "0 4 2"]


def sh(cmd: list[str], **kw) -> str:
    """Run cmd; its stdout, or exit with its stderr when it fails."""
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if p.returncode != 0:
        console.print(f"[red]{' '.join(cmd)} failed ({p.returncode}):[/red]\n{p.stderr[-2000:]}")
        sys.exit(1)
    return p.stdout


def rate(out: str) -> float:
    """The `playouts/s N` line of an MCTS run."""
    return float(out.strip().splitlines()[-1].split()[1])


def bench_mcts(reps: int, playouts: int) -> list[dict]:
    """Rows: implementation x threads with median playouts/s, and the goals."""
    OUT.mkdir(parents=True, exist_ok=True)
    pos = OUT / "mcts_positions.txt"
    pos.write_text("".join(o + "\n" for o in MCTS_OPENINGS))
    cpp = OUT / "mcts_cpp"
    sh(["g++", "-O2", "-pthread", "-o", str(cpp), str(HERE / "mcts.cpp")])
    example = REPO / "packages" / "frost" / "examples" / "mcts_play.nv"
    env = dict(os.environ, NSM_QUIET="1")
    neve = [NSM, "run", "--release", str(example)]
    sh(neve + [MCTS_GAME, "100", "1", str(pos)], env=env)   # build once, outside the timing
    impls = {"neve": lambda t: neve + [MCTS_GAME, str(playouts), str(t), str(pos)],
             "c++": lambda t: [str(cpp), MCTS_GAME, str(playouts), str(t), str(pos)],
             "cpython": lambda t: [sys.executable, str(HERE / "mcts.py"), MCTS_GAME,
                                   str(max(playouts // 50, 200)), str(t), str(pos)]}
    runs: dict[tuple[str, int], list[float]] = {}
    for r in range(reps):
        for threads in (1, 2):
            for name, cmd in impls.items():
                runs.setdefault((name, threads), []).append(rate(sh(cmd(threads), env=env)))
        console.print(f"mcts round {r + 1}/{reps} done")
    med = {k: statistics.median(v) for k, v in runs.items()}
    rows = []
    for threads in (1, 2):
        n, c, p = med["neve", threads], med["c++", threads], med["cpython", threads]
        rows.append({"workload": "mcts", "case": f"{MCTS_GAME} playouts/s, {threads} thread(s)",
                     "neve": n, "peers": {"c++": c, "cpython": p},
                     "ratios": {"c++/neve": c / n, "neve/cpython": n / p},
                     "goal": "c++/neve <= 1.3", "pass": c / n <= 1.3})
    speedup = med["neve", 2] / med["neve", 1]
    rows.append({"workload": "mcts", "case": "neve 2-thread speed-up", "neve": speedup,
                 "peers": {"c++": med["c++", 2] / med["c++", 1]}, "ratios": {},
                 "goal": ">= 1.8", "pass": speedup >= 1.8})
    return rows


BPE_TEXT = REPO / "packages" / "frost" / "data" / "tinyshakespeare" / "input.txt"


def seconds(out: str, key: str) -> float:
    """The `KEY seconds` line of a bpe_train run."""
    return float(next(l.split()[1] for l in out.splitlines() if l.startswith(key + " ")))


def bench_bpe(reps: int) -> list[dict]:
    """Rows: training (two sizes) and encoding seconds x threads, medians, against the peers."""
    OUT.mkdir(parents=True, exist_ok=True)
    text = BPE_TEXT.read_text()
    cut = len(text) * 9 // 10
    files = {"train": OUT / "bpe_train.txt", "x10": OUT / "bpe_x10.txt", "valid": OUT / "bpe_valid.txt"}
    files["train"].write_text(text[:cut])
    files["x10"].write_text(text * 10)
    files["valid"].write_text(text[cut:])
    cases = [("train", 1000, "vocab 1000 on 90% of the text (1.0 MB)"),
             ("x10", 4000, "vocab 4000 on the text x10 (11 MB)")]
    env = dict(os.environ, NSM_QUIET="1")
    neve = [NSM, "run", "--release", str(REPO / "packages" / "frost" / "examples" / "bpe_train.nv")]
    peers = [sys.executable, str(HERE / "bpe_peers.py")]
    tj = lambda who, f, t: str(OUT / f"bpe_{who}_{f}_{t}.json")
    sh(neve + ["train", str(files["train"]), "300", "1", str(OUT / "bpe_warm.json")], env=env)
    runs: dict[tuple, list[float]] = {}
    same: dict[tuple, bool] = {}
    for r in range(reps):
        for threads in (1, 2):
            tenv = dict(env, RAYON_NUM_THREADS=str(threads))
            for f, vocab, _ in cases:
                out = sh(neve + ["train", str(files[f]), str(vocab), str(threads), tj("neve", f, threads)], env=env)
                runs.setdefault(("train", f, threads, "neve"), []).append(seconds(out, "train_s"))
                got = json.loads(sh(peers + ["train", str(files[f]), str(vocab), tj("hf", f, threads)], env=tenv))
                runs.setdefault(("train", f, threads, "tokenizers"), []).append(got["train_s"])
                mine, theirs = (json.loads(Path(tj(w, f, threads)).read_text())["model"] for w in ("neve", "hf"))
                same[("train", f, threads)] = mine["merges"] == theirs["merges"]
            ids = OUT / "bpe_ids.txt"
            out = sh(neve + ["encode", tj("neve", "train", threads), str(files["valid"]), str(threads), str(ids)], env=env)
            runs.setdefault(("encode", threads, "neve"), []).append(seconds(out, "encode_s"))
            got = json.loads(sh(peers + ["encode", tj("hf", "train", threads), str(files["valid"])], env=tenv))
            runs.setdefault(("encode", threads, "tokenizers"), []).append(got["tokenizers_s"])
            runs.setdefault(("encode", threads, "tiktoken"), []).append(got["tiktoken_s"])
            same[("encode", threads)] = [int(x) for x in ids.read_text().split()] == got["ids"]
        console.print(f"bpe round {r + 1}/{reps} done")
    med = {k: statistics.median(v) for k, v in runs.items()}
    rows = []
    for f, _, what in cases:
        for threads in (1, 2):
            n, h = med["train", f, threads, "neve"], med["train", f, threads, "tokenizers"]
            ok = same["train", f, threads]
            rows.append({"workload": "bpe", "case": f"train {what}, {threads} thread(s), s"
                                                     + ("" if ok else " MERGES DIFFER"),
                         "neve": n, "peers": {"tokenizers": h}, "ratios": {"tokenizers/neve": h / n},
                         "goal": "tokenizers/neve >= 1", "pass": ok and h / n >= 1})
    for threads in (1, 2):
        n = med["encode", threads, "neve"]
        h, k = med["encode", threads, "tokenizers"], med["encode", threads, "tiktoken"]
        ok = same["encode", threads]
        rows.append({"workload": "bpe", "case": f"encode the validation split (111 KB), {threads} thread(s), s"
                                                 + ("" if ok else " IDS DIFFER"),
                     "neve": n, "peers": {"tokenizers": h, "tiktoken": k},
                     "ratios": {"tokenizers/neve": h / n, "tiktoken/neve": k / n},
                     "goal": "tokenizers/neve >= 1", "pass": ok and h / n >= 1})
    return rows


def csv_file(rows: int, seed: int = 24) -> Path:
    """The benchmark's CSV (made once per size): id, label, four numbers, a quoted name with
    commas, doubled quotes and a line break now and then; CRLF line ends."""
    path = OUT / f"csv_{rows}_{seed}.csv"
    if path.exists():
        return path
    OUT.mkdir(parents=True, exist_ok=True)
    rnd = random.Random(seed)
    words = ["Smith", "O'Neil", 'the "best"', "Lee, Ann", "multi\nline", "Zoë", "x" * 12, ""]
    tmp = path.with_suffix(".tmp")
    with tmp.open("w", newline="") as f:
        w = csv.writer(f, quoting=csv.QUOTE_NONNUMERIC, lineterminator="\r\n")
        w.writerow(["id", "label", "x0", "x1", "x2", "x3", "name"])
        for i in range(rows):
            w.writerow([i, rnd.randrange(10), round(rnd.random(), 6), round(rnd.uniform(-100, 100), 4),
                        float(f"{rnd.gauss(0, 1):.6g}"), rnd.randrange(1000),
                        f"{rnd.choice(words)} {rnd.choice(words)}"])
    tmp.rename(path)
    return path


def parse_seconds(out: str) -> float:
    """The `seconds S` figure of a csv_read or csv_peers run."""
    return float(re.search(r"seconds (\S+)", out).group(1))


def data_wait(out: str) -> float:
    """The data-wait percentage of the last epoch line of an MNIST training run."""
    return float(re.findall(r"data_wait (\S+)%", out)[-1])


def bench_csv(reps: int, _playouts: int) -> list[dict]:
    """Rows: parse ms at 1 and 2 threads with the peers' ms and Neve's ratios; the data wait."""
    path = csv_file(1_000_000)
    # csv_read does no BLAS: one OpenBLAS thread, or its idle workers spin against the parser's
    env = dict(os.environ, NSM_QUIET="1", OPENBLAS_NUM_THREADS="1")
    reader = [NSM, "run", "--release", str(REPO / "packages" / "frost" / "examples" / "csv_read.nv")]
    sh(reader + [str(path), "1", "label", "name"], env=env)   # build and warm the page cache
    peers = ("pyarrow", "polars", "pandas")
    runs: dict[tuple[str, int], list[float]] = {}
    for r in range(reps):
        for threads in (1, 2):
            runs.setdefault(("neve", threads), []).append(
                parse_seconds(sh(reader + [str(path), str(threads), "label", "name"], env=env)))
            for lib in peers:
                runs.setdefault((lib, threads), []).append(parse_seconds(sh(
                    [sys.executable, str(HERE / "csv_peers.py"), lib, str(threads), str(path)])))
        console.print(f"csv round {r + 1}/{reps} done")
    ms = {k: 1000 * statistics.median(v) for k, v in runs.items()}
    mb = path.stat().st_size / 1e6
    rows = []
    for threads in (1, 2):
        n = ms["neve", threads]
        ratio = n / ms["pyarrow", threads]
        rows.append({"workload": "csv", "case": f"parse ms, 1M rows ({mb:.0f} MB), {threads} thread(s)",
                     "neve": n, "peers": {lib: ms[lib, threads] for lib in peers},
                     "ratios": {f"neve/{lib}": n / ms[lib, threads] for lib in peers},
                     "goal": "neve/pyarrow <= 1.5" if threads == 2 else "-",
                     "pass": ratio <= 1.5 or threads == 1})
    mnist = OUT / "mnist_train.csv"
    example = REPO / "packages" / "frost" / "examples"
    env = dict(os.environ, NSM_QUIET="1")
    sh([NSM, "run", "--release", str(example / "mnist_csv.nv"), "write", str(mnist)], env=env)
    waits, loader_waits = [], []
    for _ in range(reps):
        waits.append(data_wait(sh([NSM, "run", "--release", str(example / "mnist_csv.nv"), "train",
                                   str(mnist), "epochs=2", "threads=2"], env=env)))
        loader_waits.append(data_wait(sh([NSM, "run", "--release", str(example / "mnist_mlp.nv"),
                                          "epochs=2", "workers=2"], env=env)))
    w = statistics.median(waits)
    rows.append({"workload": "csv", "case": "MNIST MLP training, data-wait % (epoch 2, 2 threads)",
                 "neve": w, "peers": {"frost DataLoader (IDX)": statistics.median(loader_waits)},
                 "ratios": {}, "goal": "< 5%", "pass": w < 5.0})
    return rows


WORKLOADS = {"mcts": lambda a: bench_mcts(a.reps, a.playouts), "bpe": lambda a: bench_bpe(a.reps),
             "csv": lambda a: bench_csv(a.reps, a.playouts)}


def num(v: float) -> str:
    """A figure: thousands separated above 100, two decimals down to 1, else 3 significant digits."""
    return f"{v:,.0f}" if v > 100 else f"{v:.2f}" if v >= 1 else f"{v:.3g}"


def table(rows: list[dict]) -> None:
    t = Table(title="Neve workloads against the tools people use (medians; higher is better "
                    "except where a ratio says otherwise)")
    for col in ("workload", "case", "neve", "peers", "ratios", "goal", ""):
        t.add_column(col)
    for r in rows:
        peers = ", ".join(f"{k} {num(v)}" for k, v in r["peers"].items())
        ratios = ", ".join(f"{k} {v:.2f}" for k, v in r["ratios"].items())
        nv = num(r["neve"])
        t.add_row(r["workload"], r["case"], nv, peers, ratios, r["goal"],
                  "[green]PASS[/green]" if r["pass"] else "[red]FAIL[/red]")
    Console(width=None if sys.stdout.isatty() else 160).print(t)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--only", default=",".join(WORKLOADS))
    ap.add_argument("--playouts", type=int, default=200_000, help="MCTS playouts per position")
    ap.add_argument("--json", help="also write the rows to this file")
    a = ap.parse_args()
    rows = []
    for name in a.only.split(","):
        if name not in WORKLOADS:
            ap.error(f"unknown workload {name!r}: one of {', '.join(WORKLOADS)}")
        rows += WORKLOADS[name](a)
    table(rows)
    if a.json:
        Path(a.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
