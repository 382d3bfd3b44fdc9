"""`nsm bench mnist`: issue 8's MNIST models, Frost's examples (packages/frost/examples/
mnist_mlp.nv, mnist_cnn.nv, unchanged) and their PyTorch counterparts (mnist_torch.py) on the
bundled 8,000 / 2,000 digits, with test accuracy per epoch, images/s and peak RSS.

Each system initialises and shuffles with its own seeded generator (the examples' init= option
could take PyTorch's weights; not wired yet), so accuracies are compared, not trajectories.
"""
from __future__ import annotations

import json
import os
import re
import statistics
import sys
from pathlib import Path

from ..errors import NsmError
from . import memory_goals, options
from .resnet import run_process

FROST = Path(__file__).parents[2] / "packages" / "frost"
SETTINGS = {"mlp": dict(example="mnist_mlp.nv", batch=128), "cnn": dict(example="mnist_cnn.nv", batch=64)}
LINE = re.compile(r"epoch (\d+) loss ([0-9.naninf]+) test_accuracy ([0-9.]+)% images_per_s ([0-9.]+)")


def _parse(log: Path) -> list[dict]:
    return [{"epoch": int(e), "loss": float(l), "accuracy": float(a) / 100, "images_per_s": float(i)}
            for e, l, a, i in LINE.findall(log.read_text(errors="replace"))]


def run_mnist(compare: tuple[str, ...], epochs: int, threads: int, seed: int,
              models: list[str], out: str, echo=print, runs: int = 1) -> dict:
    """Run the chosen models for both systems (Frost `runs` times, for the spread of its peak
    RSS; epochs and throughput from the first run); writes OUT/report.json and OUT/plot.png."""
    from ..build.orchestrate import program
    from . import report
    bad = [m for m in models if m not in SETTINGS]
    if bad:
        raise NsmError(f"unknown MNIST model(s) {', '.join(bad)}", "use mlp, cnn or both")
    if runs < 1:
        raise NsmError("--runs must be at least 1")
    options.at_least(1, epochs=epochs, threads=threads)
    outp = options.out_folder(out)
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), NEVE_KERNEL_THREADS=str(threads),
               OMP_WAIT_POLICY="passive", FROST_MNIST=str(FROST / "data" / "mnist"),
               NEVE_DEVICE="cpu")   # a CPU bench, like its PyTorch side
    rep = {"benchmark": "mnist", "epochs": epochs, "threads": threads, "seed": seed,
           "device": report.gpu_info(), "environment": report.environment(threads), "models": {}}
    for m in models:
        s = SETTINGS[m]
        exe = program(FROST / "examples" / s["example"], release=True)
        res = {}
        echo(f"frost: {m}, {epochs} epochs at batch {s['batch']}")
        args = [f"epochs={epochs}", f"seed={seed}", f"batch={s['batch']}"]
        peaks, walls = [], []
        for k in range(runs):
            log = outp / (f"frost_{m}.log" if k == 0 else f"frost_{m}_run{k + 1}.log")
            rc, w, rss = run_process([str(exe), *args], env, log)
            if rc != 0:
                raise NsmError(f"the Frost {m} run failed (log: {log})")
            peaks.append(rss)
            walls.append(w)
        res["frost"] = {"epochs": _parse(outp / f"frost_{m}.log"), "peak_rss_bytes": peaks[0],
                        "runs_peak_rss_bytes": peaks, "wall_s": walls[0]}
        if "torch" in compare:
            echo(f"torch: {m}")
            rc, wall, rss = run_process([sys.executable, "-m", "nsm.bench.mnist_torch", m, str(epochs),
                                         str(s["batch"]), str(seed), str(threads)],
                                        env, outp / f"torch_{m}.log")
            if rc != 0:
                raise NsmError(f"the PyTorch {m} run failed (log: {outp / f'torch_{m}.log'})")
            res["torch"] = {"epochs": _parse(outp / f"torch_{m}.log"), "peak_rss_bytes": rss, "wall_s": wall}
        for r in res.values():
            ips = [e["images_per_s"] for e in r["epochs"]]
            r["final_accuracy"] = r["epochs"][-1]["accuracy"] if r["epochs"] else None
            r["median_images_per_s"] = statistics.median(ips[1:] or ips) if ips else None
        if "torch" in res and res["torch"]["median_images_per_s"]:
            res["throughput_ratio_frost_over_torch"] = (res["frost"]["median_images_per_s"] /
                                                        res["torch"]["median_images_per_s"])
        if m == "cnn":
            res["memory_goals"] = memory_goals.mnist(res)
        rep["models"][m] = res
    (outp / "report.json").write_text(json.dumps(rep, indent=1, default=str))
    _plot(rep, outp / "plot.png")
    _table(rep, outp)
    return rep


def _plot(rep: dict, path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for m, res in rep["models"].items():
        for system, r in res.items():
            if not isinstance(r, dict):
                continue
            ep = [e["epoch"] for e in r["epochs"]]
            axes[0].plot(ep, [100 * e["accuracy"] for e in r["epochs"]], marker="o", label=f"{system} {m}")
            axes[1].plot(ep, [e["images_per_s"] for e in r["epochs"]], marker="o", label=f"{system} {m}")
    axes[0].set_ylabel("test accuracy %")
    axes[1].set_ylabel("training images/s")
    for ax in axes:
        ax.set_xlabel("epoch")
        ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def _table(rep: dict, out: Path) -> None:
    from rich.console import Console
    from rich.table import Table
    t = Table(title=f"nsm bench mnist: {rep['epochs']} epochs, {rep['threads']} threads")
    for c in ("model", "system", "final accuracy", "images/s (median)", "peak RSS MB", "Frost/PyTorch"):
        t.add_column(c, justify="left" if c in ("model", "system") else "right")
    for m, res in rep["models"].items():
        for system in ("frost", "torch"):
            if system not in res:
                continue
            r = res[system]
            ratio = res.get("throughput_ratio_frost_over_torch")
            t.add_row(m, system, f"{100 * (r['final_accuracy'] or 0):.2f}%",
                      f"{r['median_images_per_s'] or 0:.0f}", f"{r['peak_rss_bytes'] / 2**20:.0f}",
                      f"{ratio:.2f}x" if ratio and system == "frost" else "")
    con = Console(width=None if sys.stdout.isatty() else 120)
    con.print(t)
    for m, res in rep["models"].items():
        for g in res.get("memory_goals", []):
            con.print(memory_goals.text(g, f"mnist {m}"))
    con.print(f"report: {out / 'report.json'}  plot: {out / 'plot.png'}")
