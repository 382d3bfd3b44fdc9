"""`nsm bench gpt`: Frost and PyTorch train the same character-level GPT side by side.

Plan of one run (all files under the --out folder):
1. batches.txt: the offsets into the training split of every step's batch, and of the fixed
   evaluation batches, drawn here from --seed (numpy), so both systems see the same samples;
2. Frost: drivers/gpt.nv compiled once (--release) and run with a key-value config; it writes
   init.safetensors (its initial weights, PyTorch's names), grads1.safetensors (the first
   step's gradients) and frost.json (per-step times and losses, evaluations);
3. PyTorch (--compare torch): gpt_torch.py in its own process from init.safetensors on the same
   batches; it checks its first-step gradients against Frost's and writes torch.json;
4. with --nproc N: the Frost driver again as N DataParallel ranks through mpirun (scaling.py),
   each train line of batches.txt holding N x batch offsets, of which a rank takes every N-th;
5. the report (report.json, plot.png with both loss curves, the table).
Defaults are nanoGPT's CPU configuration of shakespeare_char (README of github.com/karpathy/nanoGPT:
4 layers, 4 heads, 128 dims, context 64, batch 12, dropout 0, AdamW lr 1e-3 with 100 warm-up
iterations and cosine decay to 1e-4, betas (0.9, 0.99), weight decay 0.1 on matrices, gradient
clipping at 1.0); --steps defaults to 200 (2,000 is the configuration's full run).
"""
from __future__ import annotations

import json
import os
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from ..errors import NsmError
from ..files import write_atomic
from . import options
from .resnet import _kv, run_side

DRIVER = Path(__file__).parent / "drivers" / "gpt.nv"
TEXT = Path(__file__).parents[2] / "packages" / "frost" / "data" / "tinyshakespeare" / "input.txt"


@dataclass
class Options:
    """Settings of one GPT benchmark run."""
    steps: int = 200
    warmup: int = 3
    batch: int = 12
    block_size: int = 64
    n_layer: int = 4
    n_head: int = 4
    n_embd: int = 128
    lr: float = 1e-3
    min_lr: float = 1e-4
    warmup_iters: int = 100
    lr_decay_iters: int = 0    # 0: the number of steps
    beta1: float = 0.9
    beta2: float = 0.99
    weight_decay: float = 0.1
    grad_clip: float = 1.0
    eval_interval: int = 250
    eval_iters: int = 20
    threads: int = 2
    seed: int = 1337
    text: str = str(TEXT)
    out: str = "bench-out/gpt"
    compare: tuple[str, ...] = ()
    nproc: int = 1
    argv: list[str] = field(default_factory=list)


def _split_sizes(text: Path) -> tuple[int, int]:
    n = text.stat().st_size
    return int(n * 0.9), n - int(n * 0.9)


def write_batches(o: Options, out: Path) -> None:
    """batches.txt: `train o...` per step (warm-up included), `eval SPLIT o...` per evaluation
    batch; offsets are uniform over [0, len(split) - block_size), as nanoGPT's get_batch."""
    n_train, n_val = _split_sizes(Path(o.text))
    if min(n_train, n_val) <= o.block_size + 1:
        raise NsmError(f"{o.text}: too short for context {o.block_size}")
    rng = np.random.default_rng(o.seed)
    lines = []
    for _ in range(o.warmup + o.steps):
        lines.append("train " + " ".join(map(str, rng.integers(0, n_train - o.block_size,
                                                               o.batch * o.nproc))))
    for split, n in (("train", n_train), ("val", n_val)):
        for _ in range(o.eval_iters):
            lines.append(f"eval {split} " + " ".join(map(str, rng.integers(0, n - o.block_size, o.batch))))
    write_atomic(out / "batches.txt", "\n".join(lines) + "\n")


def config(o: Options, out: Path) -> dict:
    """The configuration both systems read (config.txt for Frost, config.json for PyTorch)."""
    return dict(text=str(Path(o.text).resolve()), out=str(out), steps=o.steps, warmup=o.warmup,
                batch=o.batch, block_size=o.block_size, n_layer=o.n_layer, n_head=o.n_head,
                n_embd=o.n_embd, lr=o.lr, min_lr=o.min_lr, warmup_iters=o.warmup_iters,
                lr_decay_iters=o.lr_decay_iters or (o.warmup + o.steps), beta1=o.beta1,
                beta2=o.beta2, weight_decay=o.weight_decay, grad_clip=o.grad_clip,
                eval_interval=o.eval_interval, threads=o.threads, seed=o.seed, stride=o.nproc)


def run(o: Options, echo=print) -> dict:
    """Run the benchmark; returns the report (also OUT/report.json). Errors: NsmError with a
    readable message (bad options, a failed build or run)."""
    from . import report
    if min(o.steps, o.batch, o.block_size, o.n_layer, o.n_head, o.n_embd, o.threads) < 1:
        raise NsmError("--steps, --batch-size, --block-size, --n-layer, --n-head, --n-embd and "
                       "--threads must be positive")
    if o.eval_iters < 1:          # an estimate over no batches would report a loss of 0
        raise NsmError(f"--eval-iters must be at least 1, got {o.eval_iters} "
                       f"(--eval-interval 0 turns the estimates off)")
    if o.n_embd % o.n_head:
        raise NsmError(f"--n-embd {o.n_embd} is not a multiple of --n-head {o.n_head}")
    options.out_folder(o.out)          # an error, not a traceback, when it cannot be made
    if not Path(o.text).is_file():
        raise NsmError(f"{o.text}: no such text file")
    from . import scaling
    scaling.check(o.nproc, o.compare)
    out = Path(o.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    write_batches(o, out)
    cfg = config(o, out)
    (out / "config.txt").write_text(_kv(cfg))
    (out / "config.json").write_text(json.dumps(cfg, indent=1))
    for stale in ("frost.json", "torch.json", "grads1.safetensors"):
        (out / stale).unlink(missing_ok=True)

    from ..build.orchestrate import program
    t0 = time.perf_counter()
    exe = program(DRIVER, release=True)
    compile_s = time.perf_counter() - t0
    env = dict(os.environ, OMP_NUM_THREADS=str(o.threads), NEVE_KERNEL_THREADS=str(o.threads),
               OMP_WAIT_POLICY="passive", NEVE_DEVICE="cpu")   # a CPU bench, like its PyTorch side
    echo(f"frost: GPT {o.n_layer} layers, {o.n_head} heads, {o.n_embd} dims, context "
         f"{o.block_size}, batch {o.batch}: {o.warmup} warm-up + {o.steps} steps, {o.threads} threads")
    results = {"frost": dict(run_side("frost", [str(exe), str(out / "config.txt")], env, out),
                             compile_s=compile_s)}
    if "torch" in o.compare:
        echo("torch: same weights, batches, optimizer, schedule and threads")
        env_t = dict(os.environ, OMP_NUM_THREADS=str(o.threads), OMP_WAIT_POLICY="passive")
        env_t["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).parents[2]),
                                               env_t.get("PYTHONPATH", "")])
        cmd = [sys.executable, "-m", "nsm.bench.gpt_torch", str(out / "config.json")]
        results["torch"] = run_side("torch", cmd, env_t, out)
    if o.nproc > 1:
        n = o.nproc
        (out / f"config_n{n}.txt").write_text(_kv(dict(cfg, result=f"frost_n{n}")))
        (out / f"frost_n{n}.json").unlink(missing_ok=True)
        echo(f"frost: the same as {n} ranks (dist.DataParallel, mpirun), batch {o.batch} and "
             f"{o.threads} threads each")
        results[scaling.name(n)] = scaling.run_ranks(exe, out / f"config_n{n}.txt", n, env, out)
    rep = build_report(o, cfg, results)
    write_atomic(out / "report.json", json.dumps(rep, indent=1, default=str))
    plot(rep, out / "plot.png")
    return rep


def build_report(o: Options, cfg: dict, results: dict) -> dict:
    """Options, environment, per-system raw series and statistics, and the headline ratios."""
    from .report import environment, summarize
    tokens = o.batch * o.block_size
    rep = {"benchmark": "gpt", "options": asdict(o), "config": cfg,
           "environment": environment(o.threads), "systems": {}}
    for name, r in results.items():
        s = summarize(r, tokens * r.get("ranks", 1))
        s["tokens_per_s"] = s.pop("images_per_s")
        s.pop("images_per_s_mean")
        s["final_val_loss"] = r["val_loss"][-1] if r.get("val_loss") else None
        rep["systems"][name] = {"summary": s, "raw": r}
    if o.nproc > 1:
        from . import scaling
        rep["scaling"] = scaling.summary(rep["systems"]["frost"]["summary"],
                                         rep["systems"][scaling.name(o.nproc)]["summary"], o.nproc,
                                         "tokens_per_s")
    if "frost" in results and "torch" in results:
        f, t = rep["systems"]["frost"]["summary"], rep["systems"]["torch"]["summary"]
        lf, lt = results["frost"]["loss"], results["torch"]["loss"]
        rep["headline"] = {
            "step_time_ratio_frost_over_torch": f["median_step_s"] / t["median_step_s"],
            "first_loss_rel_diff": abs(lf[0] - lt[0]) / max(abs(lt[0]), 1e-12),
            "first_grad_max_rel_diff": results["torch"].get("grad_max_rel_diff")}
    return rep


def plot(rep: dict, path: Path) -> None:
    """Training loss per step (and validation loss at evaluations) and tokens/s per system."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    tokens = rep["config"]["batch"] * rep["config"]["block_size"]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    for name, sysrep in rep["systems"].items():
        r = sysrep["raw"]
        ax1.plot(range(1, len(r["loss"]) + 1), r["loss"], label=f"{name} train", linewidth=0.8)
        if r.get("val_loss"):
            ax1.plot(r["eval_steps"], r["val_loss"], "o-", label=f"{name} validation")
        ax2.plot(range(1, len(r["step_s"]) + 1), [tokens * r.get("ranks", 1) / s for s in r["step_s"]],
                 label=name)
    ax1.set_xlabel("step")
    ax1.set_ylabel("loss (nats/char)")
    ax2.set_xlabel("step")
    ax2.set_ylabel("tokens/s")
    for ax in (ax1, ax2):
        ax.legend()
    c = rep["config"]
    fig.suptitle(f"char GPT {c['n_layer']}x{c['n_embd']}, context {c['block_size']}, batch "
                 f"{c['batch']}, {c['threads']} threads, Tiny Shakespeare")
    from .report import save_figure
    save_figure(fig, path)


def print_table(rep: dict, out: Path) -> None:
    """The rich table: step times, tokens/s, peak RSS, losses, the ratios and the files."""
    from rich.console import Console
    from rich.table import Table
    con = Console(width=None if sys.stdout.isatty() else 140)
    c = rep["config"]
    t = Table(title=f"nsm bench gpt: {c['n_layer']} layers x {c['n_embd']}, batch {c['batch']}, "
                    f"context {c['block_size']}, {c['threads']} threads")
    for col in ("system", "steps", "median s/step", "p10-p90 s", "tokens/s", "peak RSS MB",
                "final loss", "val loss"):
        t.add_column(col, justify="left" if col == "system" else "right")
    for name, s in rep["systems"].items():
        s = s["summary"]
        val = "-" if s["final_val_loss"] is None else f"{s['final_val_loss']:.4f}"
        t.add_row(name, str(s["measured_steps"]), f"{s['median_step_s']:.4f}",
                  f"{s['p10_step_s']:.4f}-{s['p90_step_s']:.4f}", f"{s['tokens_per_s']:.0f}",
                  f"{s['peak_rss_mb']:.0f}", f"{s['final_loss']:.4f}", val)
    con.print(t)
    h = rep.get("headline")
    if h:
        g = h["first_grad_max_rel_diff"]
        con.print(f"[bold]Frost/PyTorch step time: {h['step_time_ratio_frost_over_torch']:.2f}x[/bold]"
                  f"  (goal <= 1.0; first-step loss relative difference {h['first_loss_rel_diff']:.1e}, "
                  f"gradients {'-' if g is None else f'{g:.1e}'}; goal 1e-4)")
    from .scaling import line
    if line(rep):
        con.print(line(rep))
    con.print(f"report: {out / 'report.json'}  plot: {out / 'plot.png'}")
