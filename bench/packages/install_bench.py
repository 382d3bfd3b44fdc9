"""Install benchmark (not a timed test): a 50-package tree served from local bare mirrors,
`nsm install` with a cold cache (clone every mirror), with a warm cache (mirrors fetched,
lib/ emptied), and a plain `git clone` of the same 50 repos, side by side.
Run: .venv/bin/python bench/packages/install_bench.py"""
from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.packages.gitrepos import Registry  # noqa: E402

N = 50


def main() -> None:
    tmp = Path(tempfile.mkdtemp(prefix="nsm-bench-"))
    try:
        reg = Registry(tmp / "remote")
        (tmp / "remote").mkdir()
        rnd = random.Random(7)
        for i in range(N):
            deps = {f"p{j}": "^1" for j in rnd.sample(range(i), min(i, 2))}
            if i:
                deps[f"p{i - 1}"] = "^1"          # every package is in the tree
            for v in ("1.0.0", "1.1.0"):
                reg.publish(f"p{i}", v, deps, files={f"m{k}.nv": "# x\n" * 20 for k in range(5)})
        app = tmp / "app"
        app.mkdir()
        (app / "neve.toml").write_text('[package]\nname = "app"\nversion = "0.1.0"\n\n'
                                       "[dependencies]\n" + "".join(
                                           f'p{i} = {{ git = "alice/p{i}", version = "^1" }}\n'
                                           for i in range(N - 5, N)))
        env = {**os.environ, "NEVE_HOME": str(tmp / "home"), "NSM_GIT_BASE": str(tmp / "remote")}
        nsm = [str(Path(sys.executable).parent / "nsm"), "install"]

        def timed(cmd, cwd) -> float:
            t = time.perf_counter()
            subprocess.run(cmd, cwd=cwd, env=env, check=True, capture_output=True)
            return time.perf_counter() - t

        cold = timed(nsm, app)
        n = len(list((tmp / "home" / "lib").glob("p*@*")))
        shutil.rmtree(tmp / "home" / "lib")
        (app / "neve.lock").unlink()
        warm = timed(nsm, app)
        noop = timed(nsm, app)
        clones = tmp / "clones"
        clones.mkdir()
        t = time.perf_counter()
        for i in range(N):
            subprocess.run(["git", "clone", "-q", str(reg.repo(f"p{i}")), str(clones / f"p{i}")],
                           check=True, capture_output=True)
        plain = time.perf_counter() - t
        print(f"{n} packages installed")
        print(f"nsm install, cold cache:              {cold:6.2f} s")
        print(f"nsm install, warm cache (lib emptied): {warm:6.2f} s")
        print(f"nsm install, everything installed:    {noop:6.2f} s")
        print(f"plain git clone of the {N} repos:       {plain:6.2f} s")
        print(f"ratios: cold/git clone {cold / plain:.2f}, warm/git clone {warm / plain:.2f}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
