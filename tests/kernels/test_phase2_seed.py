"""The seed's tensor-core matmul (issue 20, docs/phase2.md): p2-tensor-core-matmul-b.nv, verbatim
with a host main, runs on the CPU back end and matches NumPy; its PTX assembles for sm_80 and
sm_90; the 000 copy (-a) gives the one located error for `import nsk_cuda`, and compiles
without that line.

The seed issues one mma_16x8x16 per 16 x 8 tile with no loop over K, so it computes
z = x * y^T for N = 16 exactly (the issue's 512 x 256 problem: M = 512, P = 256, N = 16),
with 256-thread blocks (8 warps: 4 along M, 2 along P) over a grid of M/256 x P/128.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from parser_helpers import seeds_or_skip  # noqa: E402

NSM = Path(sys.executable).parent / "nsm"
M, N, P = 512, 16, 256

HOST_MAIN = f"""
main
    int M = {M}, N = {N}, P = {P}
    array<bf16> xs = zeros<bf16>(M * N)
    array<bf16> ys = zeros<bf16>(P * N)
    for i = 0, i < M * N
        xs[i] = bf16(float((i * 7919) % 1001 - 500) / 317.0)
    for i = 0, i < P * N
        ys[i] = bf16(float((i * 104729) % 999 - 499) / 211.0)
    float[] z = device_buffer<float>(M * P)
    launch [M // 256, P // 128] [256] mma_kernel(to_device(xs), to_device(ys), z, M, N, P)
    array<float> zs = to_array(z, M * P)
    for i = 0, i < M * N
        print(float(xs[i]))
    for i = 0, i < P * N
        print(float(ys[i]))
    for i = 0, i < M * P
        print(zs[i])
"""


def nsm(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, NEVE_DEVICE="cpu")
    return subprocess.run([str(NSM), *args], capture_output=True, text=True, timeout=600,
                          env=env, cwd=cwd)


@pytest.fixture(scope="module")
def seed_program(tmp_path_factory) -> Path:
    text = (seeds_or_skip() / "p2-tensor-core-matmul-b.nv").read_text()
    path = tmp_path_factory.mktemp("p2seed") / "seed_b_main.nv"
    path.write_text(text + HOST_MAIN)            # the seed unchanged, a host main after it
    return path


def test_seed_b_on_the_cpu_matches_numpy(seed_program):
    p = nsm("run", str(seed_program), cwd=seed_program.parent)
    assert p.returncode == 0, p.stderr
    v = np.array(p.stdout.split(), dtype=np.float32)
    assert v.size == M * N + P * N + M * P
    x = v[:M * N].reshape(M, N)                  # the bf16-rounded inputs, as the kernel saw them
    y = v[M * N:M * N + P * N].reshape(P, N)
    z = v[M * N + P * N:].reshape(M, P)
    i = np.arange(M * N)
    raw = ((i * 7919) % 1001 - 500).astype(np.float32) / np.float32(317.0)
    assert np.abs(x.ravel() - raw).max() <= 2.0 ** -8 * np.abs(raw).max()   # bf16 rounding
    want = x @ y.T                               # NumPy float32 matmul
    assert np.abs(want).max() > 1.0
    rel = np.abs(z - want).max() / np.abs(want).max()
    assert rel <= 1e-2, rel
    # products of bf16 are exact in f32 and 16 terms sum closely: far inside the tolerance
    assert rel <= 1e-6, rel


def test_seed_b_assembles_for_sm80_and_sm90(seed_program, ptxas_tool):
    from compiler.backends import ptxas
    from nsm.build.orchestrate import whole_program
    res = whole_program(str(seed_program), emit="ptx")
    assert res.ok, res.diags.render_all()
    ptx = res.dump or ""
    for needle in ("cp.async.ca.shared.global", "cp.async.commit_group",
                   "cp.async.wait_group \t0;", "ldmatrix.sync.aligned.m8n8.x4.shared.b16",
                   "ldmatrix.sync.aligned.m8n8.x2.shared.b16",
                   "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", ".shared .align 16"):
        assert needle in ptx, needle
    entries = re.findall(r"\.entry\s+(\w+)\s*\(", ptx)
    assert [d.arch for d in ptxas.assemble(ptx, entries, ptxas=ptxas_tool)] == ["sm_80", "sm_90"]


def test_seed_a_is_the_nsk_cuda_error(tmp_path):
    seed = seeds_or_skip() / "p2-tensor-core-matmul-a.nv"
    p = nsm("check", str(seed), cwd=tmp_path)
    assert p.returncode == 1
    assert p.stderr.splitlines() == [
        f"{seed}:1:5: error: 'nsk_cuda' is a package of the original Neve implementation, "
        "not of this one",
        "    import nsk_cuda",
        "    ^",
        "hint: remove the import: kernels, layouts and tensor-core intrinsics are built in "
        "(docs/phase2.md)"]


def test_seed_a_without_its_import_compiles(tmp_path):
    lines = (seeds_or_skip() / "p2-tensor-core-matmul-a.nv").read_text().splitlines()
    assert lines[0] == "    import nsk_cuda"
    path = tmp_path / "seed_a.nv"
    path.write_text("\n".join(lines[1:]) + "\n\n    main\n        print(1)\n")
    p = nsm("check", str(path), cwd=tmp_path)
    assert p.returncode == 0, p.stderr
