"""`nsm run FILE` of this tree side by side with another revision's: time to first output of the
first run of a new program (Frost's examples, a plain program) and of a rerun.

    .venv/bin/python bench/build/one_path.py [--base REV] [--repeat 5]

REV (default: the commit before the one-build-path change, 0eb2576) is checked out into a
temporary git worktree and run with the same interpreter and packages (PYTHONPATH), each side
with its own NEVE_HOME, warmed first (runtime, std and Frost compiled once). A "new program" is
the example copied to a fresh folder outside every package, so neither side has it cached;
both sides run interleaved, and the table gives medians and the ratio this/base (lower is
better; the issue's bar is <= 1.0).
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FROST = REPO / "packages" / "frost" / "examples"
PLAIN = "def int fib(int n)\n    if n < 2\n        return n\n    return fib(n - 1) + fib(n - 2)\n" \
        "main\n    print(fib(20))\n"
PROGRAMS = {                       # name -> files to copy ({} for PLAIN), args
    "mnist_mlp": (["mnist_mlp.nv", "mnist_train.nv"], ["epochs=1", "train=128"]),
    "mnist_cnn": (["mnist_cnn.nv", "mnist_train.nv"], ["epochs=1", "train=128"]),
    "fib": ([], []),
}


def first_output(cmd: list[str], env: dict, cwd: Path, timeout: float = 600) -> float:
    """Seconds from start to the first line on stdout (the process is then stopped)."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=cwd)
    try:
        line = p.stdout.readline()
        t = time.perf_counter() - t0
        if not line:
            err = p.stderr.read().decode(errors="replace")
            raise SystemExit(f"no output from {' '.join(cmd)} in {cwd}:\n{err}")
        return t
    finally:
        p.kill()
        p.wait()


class Side:
    def __init__(self, name: str, tree: Path, home: Path) -> None:
        self.name, self.tree, self.home = name, tree, home
        self.env = dict(os.environ, PYTHONPATH=str(tree), NEVE_HOME=str(home), NSM_QUIET="1",
                        FROST_MNIST=str(FROST.parent / "data" / "mnist"))

    def cmd(self, file: Path, args: list[str]) -> list[str]:
        return [sys.executable, "-c", "import sys; from nsm.cli import main; sys.argv[0] = 'nsm'; main()",
                "run", str(file), *args]


def place(name: str, where: Path) -> Path:
    files, _ = PROGRAMS[name]
    where.mkdir(parents=True)
    if not files:
        (where / "fib.nv").write_text(PLAIN)
        return where / "fib.nv"
    for f in files:
        shutil.copy(FROST / f, where / f)
    return where / files[0]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", default="0eb2576", help="the revision to compare with")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--only", help="comma-separated: " + ",".join(PROGRAMS))
    args = ap.parse_args(argv)
    names = args.only.split(",") if args.only else list(PROGRAMS)
    tmp = Path(tempfile.mkdtemp(prefix="nsm-one-path-"))
    base_tree = tmp / "base"
    subprocess.run(["git", "-C", str(REPO), "worktree", "add", "-q", "--detach", str(base_tree),
                    args.base], check=True)
    try:
        sides = [Side("base", base_tree, tmp / "home-base"), Side("this", REPO, tmp / "home-this")]
        for s in sides:                           # warm: runtime, std, Frost
            for n in names:
                f = place(n, tmp / f"warm-{s.name}-{n}")
                first_output(s.cmd(f, PROGRAMS[n][1]), s.env, f.parent)
        first = {(s.name, n): [] for s in sides for n in names}
        rerun = {(s.name, n): [] for s in sides for n in names}
        for i in range(args.repeat):
            for n in names:
                for s in sides if i % 2 == 0 else sides[::-1]:
                    f = place(n, tmp / f"run-{s.name}-{n}-{i}")
                    first[s.name, n].append(first_output(s.cmd(f, PROGRAMS[n][1]), s.env, f.parent))
                    rerun[s.name, n].append(first_output(s.cmd(f, PROGRAMS[n][1]), s.env, f.parent))
        print(f"nsm run, time to first output (s), median of {args.repeat}; base = {args.base}")
        print(f"{'program':<12}{'first base':>12}{'first this':>12}{'ratio':>8}"
              f"{'rerun base':>12}{'rerun this':>12}{'ratio':>8}")
        for n in names:
            fb, ft = (statistics.median(first[s, n]) for s in ("base", "this"))
            rb, rt = (statistics.median(rerun[s, n]) for s in ("base", "this"))
            print(f"{n:<12}{fb:>12.3f}{ft:>12.3f}{ft / fb:>8.2f}{rb:>12.3f}{rt:>12.3f}{rt / rb:>8.2f}")
    finally:
        subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(base_tree)])
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
