"""The CUDA glue of the runtime (runtime_cpp/cuda/cuda.cpp) against a fake driver.

tests/kernels/c/fake_cuda.c is built as a stand-in libcuda.so.1 (found first through
LD_LIBRARY_PATH), so dlopen, symbol lookup, the module cache, per-thread streams, zeroed
allocations, copies, launch checks and the runtime errors naming the kernel and its launch site
are tested on machines without a GPU. The real driver is exercised by test_gpu.py.
"""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from nsm.build import runtime as rtbuild

C_DIR = Path(__file__).parent / "c"


@pytest.fixture(scope="module")
def glue(tmp_path_factory):
    rt = rtbuild.ensure_runtime()
    out = tmp_path_factory.mktemp("cuda_glue")
    fake = out / "fake" / "libcuda.so.1"
    fake.parent.mkdir()
    for cmd in (["gcc", "-O1", "-shared", "-fPIC", str(C_DIR / "fake_cuda.c"), "-o", str(fake)],
                ["gcc", "-O1", "-g", "-I", str(rt.include), str(C_DIR / "cuda_glue.c"),
                 str(rt.lib), *rt.link_args, "-o", str(out / "glue")]):
        p = subprocess.run(cmd, capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
    return out


def run(glue: Path, scenario: str, fake: bool = True, **env: str):
    e = {k: v for k, v in os.environ.items() if k != "NEVE_DEVICE"}
    e.update(FAKE_CUDA_LOG=str(glue / f"{scenario}.log"), **env)
    if fake:
        e["LD_LIBRARY_PATH"] = str(glue / "fake")
    return subprocess.run([str(glue / "glue"), scenario], capture_output=True, text=True,
                          timeout=60, env=e)


def log(glue: Path, scenario: str) -> list[str]:
    p = glue / f"{scenario}.log"
    return p.read_text().splitlines() if p.exists() else []


def test_inactive_without_driver_or_with_neve_device_cpu(glue):
    assert run(glue, "active", NEVE_DEVICE="cpu").stdout == "0\n"
    assert run(glue, "active", FAKE_CUDA_INIT_FAILS="1").stdout == "0\n"
    assert run(glue, "active", NEVE_DEVICE="cuda:3").stdout == "0\n"   # no such device
    assert run(glue, "active").stdout == "1\n"
    assert log(glue, "active") == []      # deciding calls nothing that leaves a trace


def test_alloc_copy_launch_roundtrip(glue):
    p = run(glue, "roundtrip")
    assert p.returncode == 0, p.stderr
    assert p.stdout == "zeroed 0 0\n3 4 5 6\n"
    lines = log(glue, "roundtrip")
    assert lines.count("load") == 1                  # module cache by PTX hash
    assert lines.count("stream 1") == 2              # one non-blocking stream per thread
    assert lines.count("launch 1 32 0") == 2         # the zero grid launched nothing
    assert "attr 8 65536" in lines and "launch 1 32 65536" in lines
    assert lines.count("free") == 2


def test_explicit_streams_launch_in_order_and_copies_wait_for_them(glue):
    p = run(glue, "streams")
    assert p.returncode == 0, p.stderr
    assert p.stdout == "4 5\n"
    lines = [x for x in log(glue, "streams") if x.startswith(("stream", "on stream", "sync"))]
    # stream 1 is the thread's (the first copy), stream 2 the explicit one; the last launch
    # on 2 is waited for before the copy back on 1
    assert lines == ["stream 1", "sync 1", "sync 1", "stream 1", "on stream 2", "on stream 2",
                     "sync 2", "on stream 2", "sync 2", "sync 1"]


def test_caching_allocator_reuses_blocks_per_stream(glue):
    p = run(glue, "cache")
    assert p.returncode == 0, p.stderr
    # 100 bytes -> a 512-byte class; freed, it stays reserved; 300 bytes reuse it, zeroed;
    # 3 MiB rounds to 4 MiB; empty_cache gives everything back
    assert p.stdout == ("512 512\n0 512\n1 0\n4194816 4194816\n0 0\n")
    lines = log(glue, "cache")
    assert [x for x in lines if x.startswith("alloc")] == ["alloc 512", "alloc 4194304"]
    assert lines.count("free") == 2


def test_device_bytes_trigger_a_collection(glue):
    # allocations through a cached block count too: no collection in the first 40 MiB, one
    # once 64 MiB have been handed out since the last
    p = run(glue, "pressure")
    assert p.returncode == 0, p.stderr
    assert p.stdout == "1 1\n"


def test_events_time_the_stream(glue):
    p = run(glue, "events")
    assert p.returncode == 0, p.stderr
    assert p.stdout == "1.5\n"          # the fake clock advances 1.5 ms per record
    assert log(glue, "events").count("event") == 2


@pytest.mark.parametrize("scenario, message", [
    ("fault", "glue.nv:7:5: runtime error: GPU error in kernel 'fault' (launched at glue.nv:7:5"
              ", or an earlier launch of this thread) at a synchronization: "
              "CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was encountered)"),
    ("badptx", "kernel 'broken': the CUDA driver rejected its PTX: CUDA_ERROR_INVALID_PTX"),
    ("noptx", "kernel 'nogpu' has no GPU code (libdevice not found); NEVE_DEVICE=cpu runs it"),
    ("block", "launch of kernel 'wide': block dimension 2048 outside 1..1024"),
    ("resources", "launch of kernel 'heavy' at glue.nv:7:5 failed: "
                  "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"),
    ("noentry", "kernel 'lost': no entry 'missing' in its PTX"),
    ("oom", "cannot allocate 1125899906842624 bytes of GPU memory: CUDA_ERROR_OUT_OF_MEMORY"),
])
def test_errors_name_the_kernel_and_site(glue, scenario, message):
    p = run(glue, scenario)
    assert p.returncode == 1
    assert message in p.stderr, p.stderr
    assert "at main (glue.nv:7:5)" in p.stderr


def test_sync_each_launch_blames_the_launch(glue):
    p = run(glue, "fault", NEVE_CUDA_SYNC="1")
    assert p.returncode == 1 and "kernel 'fault'" in p.stderr
    assert "NEVE_CUDA_SYNC=1 reports" not in p.stderr


def test_neve_streams_program_on_the_fake_driver(glue, tmp_path):
    """The golden streams program with the fake driver as its GPU: gpu_stream() makes a CUDA
    stream (after the thread's own), its launches name it, and the results are the CPU's."""
    import sys
    prog = Path(__file__).parents[1] / "programs" / "s12_kernels" / "phase2" / "streams.nv"
    e = {k: v for k, v in os.environ.items() if k != "NEVE_DEVICE"}
    e.update(LD_LIBRARY_PATH=str(glue / "fake"), FAKE_CUDA_LOG=str(tmp_path / "log"))
    p = subprocess.run([str(Path(sys.executable).parent / "nsm"), "run", str(prog)], cwd=tmp_path,
                       capture_output=True, text=True, timeout=300, env=e)
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines() == ["[30.0, 50.0, 70.0, 90.0]", "[8.0, 8.0, 8.0, 8.0]",
                                     "[90.0, 70.0, 50.0, 30.0]"]
    lines = (tmp_path / "log").read_text().splitlines()
    assert lines.count("stream 1") == 3                 # the thread's stream, then s and t
    ons = [x for x in lines if x.startswith("on stream")]
    assert ons == ["on stream 2", "on stream 3", "on stream 2", "on stream 3", "on stream 3",
                   "on stream 2"]
