"""Frost's transformer ops and layers (issue 18), forward and backward: scaled_dot_product_attention
on both paths (flash kernels, sgemm composition), layer_norm, embedding, dropout and the
LayerNorm / Embedding / MultiheadAttention layers, against a NumPy float64 reference (forward),
central finite differences of it (backward, on the small cases), and PyTorch float64 (forward
and backward); relative error 1e-4. Dropout masks are recomputed here from Frost's seeded
generator (xoshiro256**, random.nv) and the SplitMix64 hash of elementwise.dropout_k, so
attention with dropout is checked exactly, not only statistically.

One Neve program (transformer_driver.nv) runs every case in one process (ops_driver.nv's file
protocol: each case's loss is sum(out * gout) for a random upstream gradient gout)."""
from __future__ import annotations

import os
import subprocess

import numpy as np
import pytest

from .helpers import HERE, NSM, finite_diff, load, rel_err, run_nv, save, torch_or_skip

TOL = 1e-4
FD_MAX = 800          # finite differences only on cases with at most this many input elements
M64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
rng = np.random.default_rng(18)


def r(*shape, lo=-1.0, hi=1.0):
    return rng.uniform(lo, hi, size=shape).astype(np.float32).astype(np.float64)


# ---------------------------------------------------------------- Frost's random draws, replayed

def splitmix(x):
    z = (x + GOLDEN) & M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def first_draw(seed):
    """The first $random.Generator.next() after manual_seed(seed) (random.nv), as uint64."""
    s = [splitmix((seed + i * GOLDEN) & M64) for i in range(4)]
    x = (s[1] * 5) & M64
    return ((((x << 7) | (x >> 57)) & M64) * 9) & M64


def keep_mask(seed, n, p):
    """elementwise.dropout_k's factors for flat indices 0..n-1: 0 (dropped) or 1 / (1 - p)."""
    threshold = int(np.float64(np.float32(p)) * 16777216.0)
    with np.errstate(over="ignore"):
        z = np.uint64(seed) + (np.arange(n, dtype=np.uint64) + np.uint64(1)) * np.uint64(GOLDEN)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    dropped = ((z >> np.uint64(40)) & np.uint64(0xFFFFFF)) < np.uint64(threshold)
    return np.where(dropped, 0.0, 1.0 / (1.0 - float(np.float32(p))))


DROP_P = 0.3


# ---------------------------------------------------------------- NumPy float64 references

def np_softmax(s):
    m = s.max(-1, keepdims=True)
    e = np.exp(s - m)
    return e / e.sum(-1, keepdims=True)


def np_sdpa(q, k, v, causal=False, scale=None, mask=None, bool_mask=False, keep=None):
    sc = scale if scale else 1 / np.sqrt(q.shape[-1])
    s = q @ k.swapaxes(-1, -2) * sc
    if causal:
        s = np.where(np.tril(np.ones(s.shape[-2:], dtype=bool)), s, -np.inf)
    if mask is not None:
        s = np.where(mask != 0, s, -np.inf) if bool_mask else s + mask
    p = np_softmax(s)
    if keep is not None:
        p = p * keep.reshape(p.shape)
    return p @ v


def torch_sdpa(T, q, k, v, causal=False, scale=None, mask=None, bool_mask=False, keep=None):
    F = T.nn.functional
    if keep is None:
        m = None if mask is None else (mask != 0 if bool_mask else mask)
        return F.scaled_dot_product_attention(q, k, v, attn_mask=m, is_causal=causal, scale=scale)
    s = q @ k.transpose(-1, -2) * (scale or q.shape[-1] ** -0.5)
    if causal:
        s = s.masked_fill(~T.ones(s.shape[-2:], dtype=T.bool).tril(), float("-inf"))
    return (T.softmax(s, -1) * T.tensor(keep.reshape(s.shape))) @ v


def np_layer_norm(x, nd, w=None, b=None, eps=1e-5):
    ax = tuple(range(-nd, 0))
    y = (x - x.mean(ax, keepdims=True)) / np.sqrt(x.var(ax, keepdims=True) + eps)
    return y * (1 if w is None else w) + (0 if b is None else b)


def np_mha(a, in_w, in_b, out_w, out_b, k=None, v=None, causal=False, heads=2):
    k = a if k is None else k
    v = a if v is None else v
    e = a.shape[-1]
    split = lambda x: x.reshape(x.shape[0], x.shape[1], heads, e // heads).transpose(0, 2, 1, 3)
    q_, k_, v_ = (x @ in_w[i * e:(i + 1) * e].T + in_b[i * e:(i + 1) * e] for i, x in enumerate((a, k, v)))
    o = np_sdpa(split(q_), split(k_), split(v_), causal)
    return o.transpose(0, 2, 1, 3).reshape(a.shape[0], a.shape[1], e) @ out_w.T + out_b


def torch_mha(T, a, in_w, in_b, out_w, out_b, k=None, v=None, causal=False):
    """torch.nn.MultiheadAttention(batch_first=True) run with these tensors as its parameters."""
    e = a.shape[-1]
    m = T.nn.MultiheadAttention(e, 2, batch_first=True, dtype=T.float64)
    params = {"in_proj_weight": in_w, "in_proj_bias": in_b, "out_proj.weight": out_w, "out_proj.bias": out_b}
    assert set(params) == {n for n, _ in m.named_parameters()}
    k = a if k is None else k
    v = a if v is None else v
    kw = dict(need_weights=False)
    if causal:
        kw.update(attn_mask=T.nn.Transformer.generate_square_subsequent_mask(a.shape[1], dtype=T.float64), is_causal=True)
    return T.func.functional_call(m, params, (a, k, v), kw)[0]


# ---------------------------------------------------------------- cases

SHAPES = {"a": ((2, 3, 37, 16),) * 3,          # L not a multiple of the 32-key tile or 64-row block
          "b": ((1, 2, 70, 32),) * 3,          # two row blocks, three key tiles, D 32
          "small": ((2, 1, 5, 16),) * 3,
          "cross": ((2, 2, 20, 16), (2, 2, 45, 16), (2, 2, 45, 16)),    # L < S
          "crossdv": ((1, 2, 9, 16), (1, 2, 40, 16), (1, 2, 40, 32)),   # value size 32 != 16
          "3d": ((3, 7, 16),) * 3,
          "drop": ((2, 2, 37, 16),) * 3}


_QKV = {}   # (causal, tag, shape): q, k, v shared by the flash and math twins of a case


def sdpa_case(path, causal, tag, shape_key=None):
    qs, ks, vs = SHAPES[shape_key or tag]
    key = (causal, tag, shape_key)
    if key not in _QKV:
        _QKV[key] = dict(q=r(*qs), k=r(*ks), v=r(*vs))
    inputs = dict(_QKV[key])
    kw = dict(causal=causal)
    if tag == "scale":
        kw["scale"] = 0.3
    if tag == "drop":
        n = int(np.prod(qs[:-1])) * ks[-2]
        kw["keep"] = keep_mask(first_draw(7), n, DROP_P)
    if tag in ("boolmask", "floatmask"):
        if tag == "boolmask":
            m = (rng.uniform(size=(qs[-2], ks[-2])) < 0.6).astype(np.float64)
            np.fill_diagonal(m, 1.0)              # no row fully masked
        else:
            m = r(qs[0], 1, qs[-2], ks[-2], lo=-2, hi=2)
        inputs["buf_m"] = m
        kw.update(bool_mask=tag == "boolmask")
    name = f"sdpa_{path}_{'causal' if causal else 'full'}_{tag}"
    ref = lambda q, k, v, buf_m=None: np_sdpa(q, k, v, mask=buf_m, **kw)
    tref = lambda T: (lambda q, k, v, buf_m=None: torch_sdpa(T, q, k, v, mask=buf_m, **kw))
    return name, (inputs, ref, tref)


def cases():
    c = {}
    for path in ("flash", "math"):
        for causal in (False, True):
            for tag in ("a", "b"):
                n, v = sdpa_case(path, causal, tag)
                c[n] = v
        for causal, tag in ((True, "cross"), (False, "crossdv"), (True, "3d"), (True, "drop")):
            n, v = sdpa_case(path, causal, tag)
            c[n] = v
        n, v = sdpa_case(path, False, "scale", "small")
        c[n] = v
    for causal in (False, True):
        n, v = sdpa_case("flash" if causal else "math", causal, "small")
        c[n] = v
    for tag in ("boolmask", "floatmask"):
        n, v = sdpa_case("math", False, tag, "small")
        c[n] = v
    n, v = sdpa_case("auto", True, "a")
    c[n] = v
    c["layer_norm"] = (dict(a=r(2, 3, 8), w=r(8, lo=0.5, hi=1.5), b=r(8)),
                       lambda a, w, b: np_layer_norm(a, 1, w, b),
                       lambda T: lambda a, w, b: T.nn.functional.layer_norm(a, (8,), w, b))
    c["layer_norm_2d"] = (dict(a=r(3, 4, 5), w=r(4, 5, lo=0.5, hi=1.5), b=r(4, 5)),
                          lambda a, w, b: np_layer_norm(a, 2, w, b, 1e-3),
                          lambda T: lambda a, w, b: T.nn.functional.layer_norm(a, (4, 5), w, b, 1e-3))
    c["layer_norm_noaffine"] = (dict(a=r(4, 5)), lambda a: np_layer_norm(a.T, 1),
                                lambda T: lambda a: T.nn.functional.layer_norm(a.t(), (4,)))
    c["layer_norm_module"] = (dict(a=r(2, 6), w=r(6), b=r(6)), lambda a, w, b: np_layer_norm(a, 1, w, b),
                              lambda T: lambda a, w, b: T.nn.functional.layer_norm(a, (6,), w, b))
    # the padding row is read but gets no gradient: the reference reads a frozen copy of it
    idx = np.array([[1, 3, 1], [0, 5, 3]])
    w = r(6, 3)
    c["embedding_pad"] = (dict(a=w), lambda a: np.where((idx == 3)[..., None], w.copy()[3], a[idx]),
                          lambda T: lambda a: T.nn.functional.embedding(T.tensor(idx), a, padding_idx=3))
    w2 = r(5, 3)
    idx2 = np.array([4, 0, 4, 2])
    c["embedding_module"] = (dict(a=w2), lambda a: np.where((idx2 == 4)[:, None], w2.copy()[4], a[idx2]),
                             lambda T: lambda a: T.nn.functional.embedding(T.tensor(idx2), a, padding_idx=4))
    c["dropout_eval"] = (dict(a=r(2, 3, 4)), lambda a: a * 2, lambda T: lambda a: a * 2)
    mha_in = lambda *extra: dict(a=r(2, 5, 8), in_w=r(24, 8), in_b=r(24), out_w=r(8, 8), out_b=r(8), **dict(extra))
    c["mha_self"] = (mha_in(), np_mha, lambda T: lambda **x: torch_mha(T, **x))
    c["mha_causal"] = (mha_in(), lambda **x: np_mha(**x, causal=True), lambda T: lambda **x: torch_mha(T, **x, causal=True))
    c["mha_cross"] = (mha_in(("k", r(2, 7, 8)), ("v", r(2, 7, 8))), np_mha, lambda T: lambda **x: torch_mha(T, **x))
    return c


CASES = cases()


def write_case(d, name, inputs, out_shape, gout=None):
    gout = r(*out_shape) if gout is None else gout
    lines = []
    for k, v in inputs.items():
        save(d / f"{name}.{k}", v)
        lines.append(f"{k} {','.join(map(str, v.shape)) or '-'}")
    (d / f"{name}.shapes").write_text("\n".join(lines) + "\n")
    save(d / f"{name}.gout", gout)
    return gout


def read_case(d, name, inputs, out_shape):
    got = load(d / f"{name}.out", out_shape)
    grads = {k: load(d / f"{name}.grad_{k}", v.shape) for k, v in inputs.items() if not k.startswith("buf_")}
    return got, grads


DROPOUT_X = r(3, 4, 5, 6)     # dropout_train's input; the driver transposes dims 1 and 3


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    """Run every case (and dropout_train) through Frost once: {case: (gout, out, {input: grad})}."""
    d = tmp_path_factory.mktemp("transformer")
    gouts = {}
    for name, (inputs, f, _) in CASES.items():
        twin = name.replace("sdpa_math_", "sdpa_flash_")      # flash and math twins: one gout
        gouts[name] = write_case(d, name, inputs, np.shape(f(**inputs)), gouts.get(twin))
    gouts["dropout_train"] = write_case(d, "dropout_train", dict(a=DROPOUT_X), (3, 6, 5, 4))
    run_nv(HERE / "transformer_driver.nv", str(d), *gouts, cwd=d)
    out = {name: (gouts[name], *read_case(d, name, inputs, np.shape(f(**inputs)))) for name, (inputs, f, _) in CASES.items()}
    out["dropout_train"] = (gouts["dropout_train"], *read_case(d, "dropout_train", dict(a=DROPOUT_X), (3, 6, 5, 4)))
    out["seed7"] = int((d / "seed7").read_text()) & M64
    return out


@pytest.mark.parametrize("name", list(CASES))
def test_forward_and_backward_vs_numpy_and_finite_differences(results, name):
    inputs, f, _ = CASES[name]
    gout, got, grads = results[name]
    assert rel_err(got, f(**inputs)) < TOL, "forward"
    if sum(v.size for v in inputs.values()) > FD_MAX:
        return
    for k, g in grads.items():
        fd = finite_diff(f, {a: b.copy() for a, b in inputs.items()}, k, gout)
        assert rel_err(g, fd) < TOL, f"d/d{k}"


@pytest.mark.parametrize("name", list(CASES))
def test_forward_and_backward_vs_pytorch(results, name):
    torch = torch_or_skip()
    inputs, _, tf = CASES[name]
    gout, got, grads = results[name]
    ts = {k: torch.tensor(v, dtype=torch.float64, requires_grad=not k.startswith("buf_")) for k, v in inputs.items()}
    y = tf(torch)(**ts)
    (y * torch.tensor(gout, dtype=torch.float64)).sum().backward()
    assert rel_err(got, y.detach().numpy()) < TOL, "forward"
    for k, g in grads.items():
        assert rel_err(g, ts[k].grad.numpy()) < TOL, f"d/d{k}"


def test_flash_and_math_paths_agree(results):
    """Both attention paths on the same inputs, dropout included (one seed, one mask)."""
    for name in CASES:
        if name.startswith("sdpa_flash_"):
            twin = name.replace("flash", "math")
            if twin in results:
                _, got_f, grads_f = results[name]
                _, got_m, grads_m = results[twin]
                assert rel_err(got_f, got_m) < 1e-5, name
                for k in grads_f:
                    assert rel_err(grads_f[k], grads_m[k]) < 1e-5, f"{name} d/d{k}"


def test_dropout_masks_replay_frosts_generator(results):
    """The seed replayed here is the driver's, and dropout_train's mask is dropout_k's hash of it:
    every element is 0 or x / (1 - p), about p of them 0, the gradient is gout times the mask."""
    assert results["seed7"] == first_draw(7)
    gout, got, grads = results["dropout_train"]
    xt = DROPOUT_X.transpose(0, 3, 2, 1)
    keep = keep_mask(first_draw(3), xt.size, 0.25).reshape(xt.shape)
    assert rel_err(got, xt * keep) < 1e-6
    assert rel_err(grads["a"], (gout * keep).transpose(0, 3, 2, 1)) < 1e-6
    assert abs((keep == 0).mean() - 0.25) < 0.05


@pytest.mark.parametrize("case, env, message", [
    ("lengths", None, "key [2, 3, 4] and value [2, 5, 4] have different sequence lengths"),
    ("mask_and_causal", None, "explicit attn_mask should not be set when is_causal=True"),
    ("flash_without_kernels", {"FROST_KERNELS": "0"}, "flash_attention: needs Frost's kernels"),
    ("layer_norm_shape", None, "layer_norm: Given normalized_shape=[4], expected input with shape [*, 4]"),
    ("embedding_index", None, "embedding(): index 7 is out of bounds for dimension with size 5"),
    ("mha_heads", None, "MultiheadAttention: embed_dim (6) must be divisible by num_heads (4)"),
])
def test_bad_input_is_a_located_runtime_error(results, tmp_path, case, env, message):
    e = dict(os.environ, OMP_WAIT_POLICY="passive", **(env or {}))
    p = subprocess.run([NSM, "run", str(HERE / "transformer_driver.nv"), "fail", case], cwd=tmp_path,
                       capture_output=True, text=True, timeout=300, env=e)
    assert p.returncode != 0 and message in p.stderr and "Traceback" not in p.stderr, p.stderr


def test_host_paths_match_kernels(results, tmp_path):
    """FROST_KERNELS=0: layer_norm composed from recorded ops, the math path's host softmax loops."""
    names = ["layer_norm", "layer_norm_2d", "layer_norm_noaffine", "sdpa_math_causal_a", "sdpa_auto_causal_a", "mha_causal"]
    for name in names:
        inputs, f, _ = CASES[name]
        write_case(tmp_path, name, inputs, np.shape(f(**inputs)))
        save(tmp_path / f"{name}.gout", results[name][0])
    run_nv(HERE / "transformer_driver.nv", str(tmp_path), *names, cwd=tmp_path, env={"FROST_KERNELS": "0"})
    for name in names:
        inputs, f, _ = CASES[name]
        _, got, grads = results[name]
        got0, grads0 = read_case(tmp_path, name, inputs, got.shape)
        assert rel_err(got0, got) < 1e-5, name
        for k in grads:
            assert rel_err(grads0[k], grads[k]) < 1e-5, f"{name} d/d{k}"
