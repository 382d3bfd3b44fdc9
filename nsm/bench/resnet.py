"""`nsm bench resnet18 | resnet20`: Frost and PyTorch train the same ResNet side by side.

Plan of one run (all files under the --out folder):
1. data: CIFAR-10 binary from --data, or the seeded synthetic stream written as CIFAR-10 binary
   files (data.synthetic_files), so both systems read the same bytes;
2. Frost: drivers/resnet.nv compiled once (--release) and run with a key-value config; it writes
   init.safetensors (its initial weights) and frost.json (per-step times, losses, ...);
3. PyTorch (--compare torch): torch_side.py in its own process, from init.safetensors, on the same
   batches; writes torch.json;
4. with --nproc N: the Frost driver again as N DataParallel ranks through mpirun (scaling.py);
5. report.py: statistics, report.json, plot.png, the table.
Peak RSS is each process's own (VmHWM sampled while it runs; see run_process). Threads: OMP_NUM_THREADS and NEVE_KERNEL_THREADS for
Frost, torch.set_num_threads (and OMP_NUM_THREADS) for PyTorch.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import NsmError
from . import data, options
from .torch_models import RESNETS

DRIVER = Path(__file__).parent / "drivers" / "resnet.nv"


@dataclass
class Options:
    """Settings of one ResNet benchmark run (defaults: the short resnet18 run)."""
    model: str = "resnet18"
    steps: int = 20
    warmup: int = 3
    batch: int = 32
    threads: int = 2
    device: str = "cpu"
    seed: int = 0
    data_dir: str | None = None
    epochs: int = 0
    out: str = "bench-out"
    compare: tuple[str, ...] = ()
    workers: int = 1
    crop_pad: int = 4
    flip: bool = True
    normalize: bool = True
    optimizer: str = "sgd"
    lr: float = 0.01   # 0.05 at batch 32 diverged within 5 steps on both systems (issue 17)
    momentum: float = 0.9
    nesterov: bool = False
    weight_decay: float = 5e-4
    beta1: float = 0.9
    beta2: float = 0.999
    eps: float = 1e-8
    evaluate: bool = False
    channels_last: bool = False
    omp_wait_policy: str = "passive"
    profile: bool = True
    preset: str | None = None
    nproc: int = 1
    argv: list[str] = field(default_factory=list)


def original_preset(o: Options) -> Options:
    """The original benchmark's settings: batch 32, 20,000 steps, AdamW lr 1e-4, weight decay
    0.01, betas (0.9, 0.999), no augmentation, evaluation with BN running statistics."""
    o.batch, o.steps, o.optimizer, o.lr, o.weight_decay = 32, 20_000, "adamw", 1e-4, 0.01
    o.beta1, o.beta2, o.crop_pad, o.flip, o.evaluate = 0.9, 0.999, 0, False, True
    return o


def _config(o: Options, files: data.CifarFiles, out: Path, eval_every: int) -> dict:
    spec = RESNETS[o.model]
    mean = data.CIFAR_MEAN if o.normalize else (0.0, 0.0, 0.0)
    std = data.CIFAR_STD if o.normalize else (1.0, 1.0, 1.0)
    return dict(model=o.model, stem=spec["stem"], widths=list(spec["widths"]),
                depths=list(spec["depths"]), strides=list(spec["strides"]),
                fc_bias=spec["fc_bias"], train_files=[str(f) for f in files.train],
                test_file=str(files.test) if files.test else "", batch=o.batch, steps=o.steps,
                warmup=o.warmup, seed=o.seed, workers=o.workers, crop_pad=o.crop_pad,
                flip=o.flip, mean=list(mean), std=list(std), optimizer=o.optimizer, lr=o.lr,
                momentum=o.momentum, nesterov=o.nesterov, weight_decay=o.weight_decay,
                beta1=o.beta1, beta2=o.beta2, eps=o.eps, eval_every=eval_every,
                threads=o.threads, channels_last=o.channels_last, device=o.device, out=str(out))


def _kv(cfg: dict) -> str:
    """The driver's "key value" lines (lists comma-separated, booleans 1/0)."""
    def text(v):
        if isinstance(v, bool):
            return "1" if v else "0"
        if isinstance(v, (list, tuple)):
            return ",".join(text(x) for x in v)
        return repr(v) if isinstance(v, float) else str(v)
    return "".join(f"{k} {text(v)}\n" for k, v in cfg.items())


def run_process(cmd: list[str], env: dict, log: Path) -> tuple[int, float, int]:
    """Run cmd with its output in log: (exit status, wall seconds, peak RSS bytes of the process
    itself). The peak is VmHWM of /proc/PID/status, sampled every 20 ms until exit: wait4's
    ru_maxrss would include the forking nsm process's own footprint, which the kernel carries
    over exec into the child's high-water mark."""
    t0 = time.perf_counter()
    peak = 0
    with open(log, "w") as f:
        p = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT, env=env)
        while True:
            peak = max(peak, vm_hwm(p.pid))
            pid, status, usage = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            time.sleep(0.02)
        p.returncode = os.waitstatus_to_exitcode(status)
    return p.returncode, time.perf_counter() - t0, peak or usage.ru_maxrss * 1024


def vm_hwm(pid: int) -> int:
    """Peak resident set size in bytes of a running process (0 once it has exited)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    return 0


def run_side(name: str, cmd: list[str], env: dict, out: Path) -> dict:
    """Run one system of a side-by-side benchmark (its output in OUT/NAME.log); its
    OUT/NAME.json with the process's peak RSS and wall time added. Errors: NsmError with the log's
    tail when it fails or writes no JSON."""
    log, result = out / f"{name}.log", out / f"{name}.json"
    rc, wall, rss = run_process(cmd, env, log)
    if rc != 0 or not result.exists():
        raise _fail_log(f"the {'Frost' if name == 'frost' else 'PyTorch'} run", log)
    return dict(json.loads(result.read_text()), peak_rss_bytes=rss, process_wall_s=wall)


def _fail_log(what: str, log: Path) -> NsmError:
    tail = log.read_text(errors="replace")[-3000:] if log.exists() else ""
    return NsmError(f"{what} failed (log: {log}):\n{tail.rstrip()}")


def prepare(o: Options) -> tuple[Path, data.CifarFiles, int, int]:
    """Validate options, make the out folder and the data: (out, files, steps, eval_every)."""
    if o.model not in RESNETS:
        raise NsmError(f"unknown model {o.model!r}", f"one of {', '.join(RESNETS)}")
    options.at_least(0, epochs=o.epochs, workers=o.workers, crop_pad=o.crop_pad)
    if not o.lr > 0 or not o.weight_decay >= 0:
        raise NsmError(f"--lr must be positive and --weight-decay at least 0, got {o.lr} and "
                       f"{o.weight_decay}")
    options.out_folder(o.out)          # an error, not a traceback, when it cannot be made
    options.at_least(1, batch_size=o.batch, steps=o.steps, threads=o.threads)
    options.at_least(0, warmup=o.warmup)
    from . import scaling
    scaling.check(o.nproc, o.compare)
    out = Path(o.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    if o.data_dir:
        files = data.cifar_files(o.data_dir)
    else:
        n_train = min(10_000, max(o.batch * o.nproc * (o.steps + o.warmup), 2 * o.batch * o.nproc))
        if o.epochs:
            n_train = 10_000
        files = data.synthetic_files(out / "data", o.seed, n_train, min(1_000, max(n_train // 10, o.batch)))
    n_train = sum(f.stat().st_size for f in files.train) // data.RECORD
    per_epoch = n_train // o.batch
    if per_epoch == 0:
        raise NsmError(f"{n_train} training samples are fewer than one batch of {o.batch}")
    eval_every = 0
    if o.epochs:
        o.steps = o.epochs * per_epoch
        o.warmup = 0
        eval_every = per_epoch
    elif o.evaluate:
        eval_every = o.steps
    if files.test is None:
        eval_every = 0
    return out, files, per_epoch, eval_every


def run(o: Options, echo=print) -> dict:
    """Run the benchmark; returns the report (also written to OUT/report.json). Errors:
    NsmError with a readable message (bad options or data, a failed build or run)."""
    from . import report
    out, files, per_epoch, eval_every = prepare(o)
    cfg = _config(o, files, out, eval_every)
    (out / "config.txt").write_text(_kv(cfg))
    (out / "config.json").write_text(json.dumps(cfg, indent=1))
    gpu = report.gpu_info()
    echo(f"data: {files.description}")
    echo(f"device: {gpu['note']}")

    from ..build.orchestrate import program
    t0 = time.perf_counter()
    exe = program(DRIVER, release=True)
    compile_s = time.perf_counter() - t0
    # NEVE_DEVICE: the DataLoader's batches land on the default device (12.4), which is the GPU
    # when one is usable; --device decides it here
    env = dict(os.environ, OMP_NUM_THREADS=str(o.threads), NEVE_KERNEL_THREADS=str(o.threads),
               NEVE_DEVICE=o.device)
    # Spinning OpenMP workers fight the Neve kernel pool (and other users) for these 2 cores:
    # passive waiting measured 4-8x faster Frost steps here; both systems get the same policy.
    if o.omp_wait_policy != "default":
        env["OMP_WAIT_POLICY"] = o.omp_wait_policy
    # the per-op profile of the measured steps (the driver resets it after the warm-up)
    env.pop("FROST_PROFILE_JSON", None)
    env["FROST_PROFILE"] = "1" if o.profile else "0"
    if o.profile:
        env["FROST_PROFILE_JSON"] = str(out / "frost_profile.json")
    for stale in ("frost.json", "torch.json", "frost_profile.json"):
        (out / stale).unlink(missing_ok=True)
    echo(f"frost: {o.model}, {o.warmup} warm-up + {o.steps} steps at batch {o.batch}, "
         f"{o.threads} threads")
    results = {"frost": dict(run_side("frost", [str(exe), str(out / "config.txt")], env, out),
                             compile_s=compile_s)}
    if o.profile and (out / "frost_profile.json").exists():
        results["frost"]["profile"] = json.loads((out / "frost_profile.json").read_text())
    if "torch" in o.compare:
        echo("torch: same weights, batches, optimizer and threads")
        cmd = [sys.executable, "-m", "nsm.bench.torch_side", str(out / "config.json")]
        env_t = dict(os.environ, OMP_NUM_THREADS=str(o.threads))
        if o.omp_wait_policy != "default":
            env_t["OMP_WAIT_POLICY"] = o.omp_wait_policy
        env_t["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).parents[2]),
                                               env_t.get("PYTHONPATH", "")])
        results["torch"] = run_side("torch", cmd, env_t, out)
    if o.nproc > 1:
        from . import scaling
        n = o.nproc
        (out / f"config_n{n}.txt").write_text(_kv(dict(cfg, result=f"frost_n{n}", ranks=n)))
        (out / f"frost_n{n}.json").unlink(missing_ok=True)
        echo(f"frost: the same as {n} ranks (dist.DataParallel, mpirun), batch {o.batch} and "
             f"{o.threads} threads each")
        results[scaling.name(n)] = scaling.run_ranks(exe, out / f"config_n{n}.txt", n, env, out)
    rep = report.build(o, cfg, files, results, gpu, per_epoch)
    if o.nproc > 1:
        rep["scaling"] = scaling.summary(rep["systems"]["frost"]["summary"],
                                         rep["systems"][scaling.name(o.nproc)]["summary"], o.nproc,
                                         "images_per_s")
    report.write(rep, out)
    return rep
