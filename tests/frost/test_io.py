"""safetensors files (packages/frost/io.nv) checked with the `safetensors` Python package both
ways: a file Frost writes is read by safetensors (and torch for BF16), a file safetensors
writes (F32, F64, F16, BF16, integer and bool dtypes, metadata) is read by Frost; load_into
copies by name into existing tensors; bad files and shape mismatches are runtime errors naming
the file; a save leaves no temporary file. One Neve program serves every test (a case per
command-line argument), so it compiles once."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

NSM = [str(Path(sys.executable).parent / "nsm")]
st_numpy = pytest.importorskip("safetensors.numpy")

PROGRAM = """
import frost
import frost/io

def void dump(map<str, frost.Tensor> m)
    for k in m
        print(k, "|", m[k].shape, "|", m[k].to_array())

def void write(str values_text)
    array<float> vals = values_text.split(",") mapit v: to_float(v)
    map<str, frost.Tensor> m
    m["fc.weight"] = frost.from_array(vals, [4, 3])
    m["fc.bias"] = frost.from_array([0.5, -0.25, 1e-30], [3])
    m["step"] = frost.full([], 7.0)
    m["empty"] = frost.zeros([0, 5])
    m["na\\"me \\u{e9}"] = frost.ones([2, 1, 2])
    map<str, str> meta = {"format": "pt", "by": "frost"}
    io.save_file(m, "out.safetensors", meta)
    io.save_file(m, "half.safetensors", dtype="BF16")
    io.save_file(m, "f16.safetensors", dtype="F16")
    io.save_file(m, "f64.safetensors", dtype="F64")

main
    str case = argv()[1]
    if case == "write"
        write(argv()[2])
    elif case == "dump"
        dump(io.load_file(argv()[2]))
        map<str, str> meta = io.load_metadata(argv()[2])
        for k in meta
            print("meta|", k, "|", meta[k])
    elif case == "into"
        frost.Tensor w = frost.zeros([2, 3])
        frost.Tensor b = frost.zeros([1])
        map<str, frost.Tensor> params = io.named(["w", "b"], [w, b])
        print(io.load_into(params, "m.safetensors"), " ", w.to_array(), " ", b.to_array())
        map<str, frost.Tensor> partial
        partial["w"] = frost.zeros([2, 3])
        print(io.load_into(partial, "m.safetensors", strict=false))
    elif case == "shape"
        io.load_into(io.named(["w", "b"], [frost.zeros([3, 2]), frost.zeros([1])]), "m.safetensors")
    elif case == "extra"
        io.load_into(io.named(["w"], [frost.zeros([2, 3])]), "m.safetensors")
    elif case == "missing_name"
        io.load_into(io.named(["w", "b", "c"], [frost.zeros([2, 3]), frost.zeros([1]), frost.zeros([1])]), "m.safetensors")
    else
        io.load_file(case)
    print("done")
"""


@pytest.fixture(scope="module")
def prog(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("io_prog") / "io_cases.nv"
    path.write_text(PROGRAM.lstrip())
    return path


def run(prog: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(NSM + ["run", str(prog), *args], cwd=cwd, capture_output=True,
                          text=True, timeout=300)


def in_torch(code: str, cwd: Path) -> str:
    """Run `code` in a fresh Python in `cwd`: importing torch in the pytest process would grow
    it by hundreds of MB, which every later child inherits in its ru_maxrss (Linux keeps the
    peak across fork and exec), upsetting memory tests. Without torch: skip (fail with CI=true)."""
    p = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=cwd,
                       capture_output=True, text=True, timeout=300)
    if p.returncode != 0 and "No module named 'torch'" in p.stderr:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("torch is missing (CI=true): install the `test` extra")
        pytest.skip("torch is not installed")
    assert p.returncode == 0, p.stderr
    return p.stdout


def dump(prog: Path, cwd: Path, file: str) -> tuple[dict, dict]:
    """The tensors Frost reads from `file` (name -> (shape, float32 values)) and metadata."""
    p = run(prog, cwd, "dump", file)
    assert p.returncode == 0, p.stderr
    tensors, meta = {}, {}
    for line in p.stdout.splitlines()[:-1]:
        a, b, c = line.split("|")
        if a == "meta":
            meta[b] = c
            continue
        shape = [int(x) for x in b.strip("[]").split(",") if x.strip()]
        vals = [float(x) for x in c.strip("[]").split(",") if x.strip()]
        tensors[a] = (shape, np.array(vals, dtype=np.float32))
    return tensors, meta


def test_frost_writes_safetensors_reads(prog, tmp_path):
    w = np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32)
    p = run(prog, tmp_path, "write", ",".join(repr(float(x)) for x in w.ravel()))
    assert p.returncode == 0, p.stderr
    assert not list(tmp_path.glob("*.tmp"))
    got = st_numpy.load_file(str(tmp_path / "out.safetensors"))
    assert list(got) == ["fc.weight", "fc.bias", "step", "empty", 'na"me \u00e9'] or \
        set(got) == {"fc.weight", "fc.bias", "step", "empty", 'na"me \u00e9'}
    assert got["fc.weight"].dtype == np.float32 and np.array_equal(got["fc.weight"], w)
    assert np.array_equal(got["fc.bias"], np.array([0.5, -0.25, 1e-30], np.float32))
    assert got["step"].shape == () and got["step"] == 7.0
    assert got["empty"].shape == (0, 5)
    assert np.array_equal(got['na"me \u00e9'], np.ones((2, 1, 2), np.float32))
    from safetensors import safe_open
    with safe_open(str(tmp_path / "out.safetensors"), "np") as f:
        assert f.metadata() == {"format": "pt", "by": "frost"}
    f64 = st_numpy.load_file(str(tmp_path / "f64.safetensors"))
    assert f64["fc.weight"].dtype == np.float64 and np.array_equal(f64["fc.weight"], w)
    f16 = st_numpy.load_file(str(tmp_path / "f16.safetensors"))
    assert np.array_equal(f16["fc.weight"], w.astype(np.float16))
    # and back: Frost reads its own files
    back, meta = dump(prog, tmp_path, "out.safetensors")
    assert np.array_equal(back["fc.weight"][1], w.ravel()) and meta == {"format": "pt", "by": "frost"}
    np.save(tmp_path / "w.npy", w)
    assert in_torch("""
        import numpy as np, torch
        from safetensors.torch import load_file
        bf = load_file("half.safetensors")["fc.weight"]
        w = torch.from_numpy(np.load("w.npy"))
        print(bf.dtype == torch.bfloat16 and torch.equal(bf, w.to(torch.bfloat16)))
        """, tmp_path) == "True\n"


def test_safetensors_writes_frost_reads(prog, tmp_path):
    rng = np.random.default_rng(1)
    tensors = {
        "a.f32": rng.standard_normal((2, 3, 4)).astype(np.float32),
        "b.f64": rng.standard_normal((5,)),
        "c.f16": rng.standard_normal((3, 2)).astype(np.float16),
        "d.i64": np.array([-3, 0, 1 << 40], np.int64),
        "e.u8": np.array([[0, 255], [7, 9]], np.uint8),
        "f.i32": np.array([-7, 8], np.int32),
        "g.bool": np.array([True, False, True]),
        "h.scalar": np.array(2.5, np.float32),
        "\u00fcber/x": np.zeros((1, 0), np.float32),
    }
    st_numpy.save_file(tensors, str(tmp_path / "py.safetensors"), metadata={"k": "v\"\\"})
    out, meta = dump(prog, tmp_path, "py.safetensors")
    assert set(out) == set(tensors)
    for name, arr in tensors.items():
        shape, vals = out[name]
        assert shape == list(arr.shape), name
        assert np.array_equal(vals, arr.astype(np.float32).ravel()), name
    assert meta == {"k": "v\"\\"}


def test_bf16_from_torch(prog, tmp_path):
    in_torch("""
        import torch, numpy as np
        from safetensors.torch import save_file
        t = torch.randn(3, 5, generator=torch.Generator().manual_seed(2)).to(torch.bfloat16)
        save_file({"w": t, "v": torch.arange(4.0).double()}, "bf.safetensors")
        np.save("bf.npy", t.float().numpy())
        """, tmp_path)
    out, _ = dump(prog, tmp_path, "bf.safetensors")
    assert out["w"][0] == [3, 5]
    assert np.array_equal(out["w"][1], np.load(tmp_path / "bf.npy").ravel())
    assert np.array_equal(out["v"][1], np.arange(4.0, dtype=np.float32))


def test_load_into_and_errors(prog, tmp_path):
    st_numpy.save_file({"w": np.arange(6, dtype=np.float32).reshape(2, 3),
                        "b": np.array([1.5], np.float32)}, str(tmp_path / "m.safetensors"))
    (tmp_path / "bad.safetensors").write_bytes(b"\x10\x00\x00\x00\x00\x00\x00\x00{\"w\": [1, 2}    ")
    (tmp_path / "short.safetensors").write_bytes(b"\x10\x00\x00")
    (tmp_path / "range.safetensors").write_bytes(
        b"\x40\x00\x00\x00\x00\x00\x00\x00" +
        b'{"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}'.ljust(64) + b"\x00" * 4)
    p = run(prog, tmp_path, "into")
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines() == ["2 [0.0, 1.0, 2.0, 3.0, 4.0, 5.0] [1.5]", "1", "done"]
    cases = {
        "shape": 'tensor "w" has shape [2, 3] in m.safetensors, [3, 2] in the model',
        "extra": 'unexpected tensor "b" in m.safetensors',
        "missing_name": 'm.safetensors has no tensor "c"',
        "missing.safetensors": 'cannot open file "missing.safetensors"',
        "bad.safetensors": "bad.safetensors: malformed header at byte 6: expected '{'",
        "short.safetensors": "not a safetensors file (shorter than 8 bytes): short.safetensors",
        "range.safetensors": 'tensor "w" (F32 [2]) has data_offsets [0, 8], which do not hold 8 bytes inside the 4 data bytes',
    }
    for arg, message in cases.items():
        p = run(prog, tmp_path, arg)
        assert p.returncode == 1, arg
        assert message in p.stderr, (arg, p.stderr)
        assert "done" not in p.stdout
