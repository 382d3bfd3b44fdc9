"""Every Frost op, forward and backward, on small random shapes: against a NumPy float64
reference (forward), central finite differences of that reference in float64 (backward), and
PyTorch CPU in float64 (forward and backward); relative error 1e-3 (float32 ops).

One Neve program (ops_driver.nv) runs all cases in one process: each case's loss is
sum(out * gout) for a random upstream gradient gout, so input gradients are vector-Jacobian
products that finite differences check directly."""
from __future__ import annotations

import math

import numpy as np
import pytest

from .helpers import HERE, finite_diff, load, rel_err, run_nv, save, torch_or_skip

TOL = 1e-3
TOL_EW = 1e-5   # element-wise ops (issue 17)
rng = np.random.default_rng(8)


def r(*shape, lo=-1.0, hi=1.0):
    return rng.uniform(lo, hi, size=shape).astype(np.float32).astype(np.float64)


# ---------------------------------------------------------------- NumPy float64 references

def np_conv2d(x, w, b, stride, pad):
    n, c, h, wd = x.shape
    oc, _, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = (h + 2 * pad - kh) // stride + 1, (wd + 2 * pad - kw) // stride + 1
    y = np.zeros((n, oc, oh, ow))
    for i in range(oh):
        for j in range(ow):
            patch = xp[:, :, i * stride:i * stride + kh, j * stride:j * stride + kw]
            y[:, :, i, j] = np.einsum("nchw,ochw->no", patch, w)
    return y if b is None else y + b[None, :, None, None]


def np_pool(x, k, stride, pad, kind):
    n, c, h, w = x.shape
    fill = -np.inf if kind == "max" else 0.0
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)), constant_values=fill)
    oh, ow = (h + 2 * pad - k) // stride + 1, (w + 2 * pad - k) // stride + 1
    y = np.zeros((n, c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            patch = xp[:, :, i * stride:i * stride + k, j * stride:j * stride + k]
            y[:, :, i, j] = patch.max(axis=(2, 3)) if kind == "max" else patch.sum(axis=(2, 3)) / (k * k)
    return y


def np_adaptive(x, oh, ow):
    n, c, h, w = x.shape
    y = np.zeros((n, c, oh, ow))
    for i in range(oh):
        h0, h1 = (i * h) // oh, -(-((i + 1) * h) // oh)
        for j in range(ow):
            w0, w1 = (j * w) // ow, -(-((j + 1) * w) // ow)
            y[:, :, i, j] = x[:, :, h0:h1, w0:w1].mean(axis=(2, 3))
    return y


def np_bn_train(a, g, b, eps=1e-5):
    x = a
    m = x.mean(axis=(0, 2, 3), keepdims=True)
    v = x.var(axis=(0, 2, 3), keepdims=True)
    return (x - m) / np.sqrt(v + eps) * g[None, :, None, None] + b[None, :, None, None]


def np_bn_eval(a, g, b, buf_rm, buf_rv, eps=1e-5):
    rm, rv = buf_rm, buf_rv
    x = a
    s = lambda t: t[None, :, None, None]
    return (x - s(rm)) / np.sqrt(s(rv) + eps) * s(g) + s(b)


def np_log_softmax(a):
    x = a
    m = x.max(axis=1, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=1, keepdims=True))


def np_ce(a, target):
    x, t = a, target
    return -np_log_softmax(x)[np.arange(len(t)), t.astype(int)].mean()


# name -> (inputs, differentiable input names, reference f(**inputs), torch f(**inputs))
def cases(torch=None):
    F = torch.nn.functional if torch else None
    c = {}
    T = torch
    sig = lambda a: 1 / (1 + np.exp(-a))
    c["add"] = (dict(a=r(3, 4), b=r(4)), lambda a, b: a + b, lambda a, b: a + b)
    c["sub"] = (dict(a=r(2, 3, 4), b=r(3, 1)), lambda a, b: a - b, lambda a, b: a - b)
    c["mul"] = (dict(a=r(3, 4), b=r(3, 1)), lambda a, b: a * b, lambda a, b: a * b)
    c["div"] = (dict(a=r(3, 4), b=r(4, lo=0.5, hi=2.0)), lambda a, b: a / b, lambda a, b: a / b)
    c["scalar"] = (dict(a=r(2, 5)), lambda a: (a * 3 + 2) / 4 - 1, lambda a: (a * 3 + 2) / 4 - 1)
    c["matmul"] = (dict(a=r(3, 4), b=r(4, 5)), lambda a, b: a @ b, lambda a, b: a @ b)
    c["matmul_batched"] = (dict(a=r(2, 3, 4), b=r(2, 4, 5)), lambda a, b: a @ b, lambda a, b: a @ b)
    c["matmul_vec"] = (dict(a=r(4), b=r(4, 3)), lambda a, b: a @ b, lambda a, b: a @ b)
    c["linear"] = (dict(a=r(3, 4), w=r(5, 4), b=r(5)), lambda a, w, b: a @ w.T + b,
                   lambda a, w, b: F.linear(a, w, b) if F else None)
    c["conv2d"] = (dict(a=r(2, 3, 6, 5), w=r(4, 3, 3, 3), b=r(4)),
                   lambda a, w, b: np_conv2d(a, w, b, 2, 1),
                   lambda a, w, b: F.conv2d(a, w, b, stride=2, padding=1) if F else None)
    c["conv2d_nobias"] = (dict(a=r(2, 2, 5, 5), w=r(3, 2, 2, 3)),
                          lambda a, w: np_conv2d(a, w, None, 1, 0),
                          lambda a, w: F.conv2d(a, w) if F else None)
    c["batch_norm_train"] = (dict(a=r(3, 2, 4, 4), g=r(2, lo=0.5, hi=1.5), b=r(2)), np_bn_train,
                             lambda a, g, b: F.batch_norm(a, None, None, g, b, training=True) if F else None)
    # nn.BatchNorm2d.forward_relu's fused op (ResNet's blocks): relu of the training-mode norm
    c["batch_norm_relu_train"] = (dict(a=r(3, 2, 4, 4), g=r(2, lo=0.5, hi=1.5), b=r(2)),
                                  lambda a, g, b: np.maximum(np_bn_train(a, g, b), 0),
                                  lambda a, g, b: F.relu(F.batch_norm(a, None, None, g, b, training=True)) if F else None)
    c["batch_norm_eval"] = (dict(a=r(2, 3, 3, 3), g=r(3), b=r(3), buf_rm=r(3), buf_rv=r(3, lo=0.5, hi=2.0)),
                            np_bn_eval, lambda a, g, b, buf_rm, buf_rv: F.batch_norm(a, buf_rm, buf_rv, g, b, training=False) if F else None)
    c["relu"] = (dict(a=r(3, 5)), lambda a: np.maximum(a, 0), lambda a: F.relu(a) if F else None)
    c["max_pool2d"] = (dict(a=r(2, 2, 4, 6)), lambda a: np_pool(a, 2, 2, 0, "max"),
                       lambda a: F.max_pool2d(a, 2) if F else None)
    c["max_pool2d_strided"] = (dict(a=r(1, 2, 5, 5)), lambda a: np_pool(a, 3, 2, 1, "max"),
                               lambda a: F.max_pool2d(a, 3, 2, 1) if F else None)
    c["avg_pool2d"] = (dict(a=r(2, 2, 4, 6)), lambda a: np_pool(a, 2, 2, 0, "avg"),
                       lambda a: F.avg_pool2d(a, 2) if F else None)
    c["avg_pool2d_padded"] = (dict(a=r(1, 2, 5, 5)), lambda a: np_pool(a, 3, 2, 1, "avg"),
                              lambda a: F.avg_pool2d(a, 3, 2, 1) if F else None)
    c["adaptive_avg_pool2d"] = (dict(a=r(2, 2, 5, 7)), lambda a: np_adaptive(a, 2, 3),
                                lambda a: F.adaptive_avg_pool2d(a, (2, 3)) if F else None)
    c["softmax"] = (dict(a=r(3, 5, lo=-3, hi=3)), lambda a: np.exp(np_log_softmax(a)),
                    lambda a: F.softmax(a, 1) if F else None)
    c["log_softmax"] = (dict(a=r(3, 5, lo=-3, hi=3)), np_log_softmax,
                        lambda a: F.log_softmax(a, 1) if F else None)
    c["cross_entropy"] = (dict(a=r(4, 5, lo=-2, hi=2), target=np.array([0., 3., 4., 1.])), np_ce,
                          lambda a, target: F.cross_entropy(a, target.long()) if F else None)
    c["mse"] = (dict(a=r(3, 4), b=r(3, 4)), lambda a, b: ((a - b) ** 2).mean(),
                lambda a, b: F.mse_loss(a, b) if F else None)
    c["sum_dim"] = (dict(a=r(2, 3, 4)), lambda a: a.sum(axis=1), lambda a: a.sum(1))
    c["mean_all"] = (dict(a=r(3, 4)), lambda a: np.float64(a.mean()), lambda a: a.mean())
    c["mean_keepdim"] = (dict(a=r(3, 4)), lambda a: a.mean(axis=0, keepdims=True),
                         lambda a: a.mean(0, keepdim=True))
    c["view_row"] = (dict(a=r(2, 2, 3)), lambda a: a.reshape(-1, 6)[1] * a.reshape(-1)[2:8],
                     lambda a: a.reshape(-1, 6)[1] * a.reshape(-1)[2:8])
    # strided views (non-contiguous inputs to every kind of op)
    c["transpose"] = (dict(a=r(2, 3, 4)), lambda a: a.transpose(2, 1, 0) * 2, lambda a: a.transpose(0, 2) * 2)
    c["permute_add"] = (dict(a=r(2, 3, 4), b=r(3)), lambda a, b: a.transpose(2, 0, 1) + b,
                        lambda a, b: a.permute(2, 0, 1) + b)
    c["t_matmul"] = (dict(a=r(4, 3), b=r(4, 5)), lambda a, b: a.T @ b, lambda a, b: a.t() @ b)
    c["mT_matmul"] = (dict(a=r(2, 3, 4), b=r(2, 5, 4)), lambda a, b: a @ b.swapaxes(-1, -2),
                      lambda a, b: a @ b.mT)
    c["expand"] = (dict(a=r(3, 1), b=r(2, 3, 4)), lambda a, b: np.broadcast_to(a, (2, 3, 4)) * b,
                   lambda a, b: a.expand(2, 3, 4) * b)
    c["broadcast_to_sum"] = (dict(a=r(3)), lambda a: np.broadcast_to(a, (4, 3)).sum(0),
                             lambda a: a.broadcast_to((4, 3)).sum(0))
    c["squeeze_unsqueeze"] = (dict(a=r(3, 1, 4), b=r(2, 3, 4)), lambda a, b: a[:, 0][None] * b,
                              lambda a, b: a.squeeze(1).unsqueeze(0) * b)
    c["slice_step"] = (dict(a=r(3, 6), b=r(3, 2)), lambda a, b: a[:, 1:5:2] * b, lambda a, b: a[:, 1:5:2] * b)
    c["slice_negative"] = (dict(a=r(4, 3)), lambda a: a[-2:].T * 3, lambda a: a[-2:].t() * 3)
    c["narrow_relu"] = (dict(a=r(2, 3, 4)), lambda a: np.maximum(a[:, :, 1:3], 0),
                        lambda a: F.relu(a.narrow(2, 1, 2)) if F else None)
    c["select_matmul"] = (dict(a=r(2, 3, 4), b=r(4, 2)), lambda a, b: a[:, -1] @ b, lambda a, b: a[:, -1] @ b)
    c["softmax_transposed"] = (dict(a=r(5, 3, lo=-3, hi=3)), lambda a: np.exp(np_log_softmax(a.T)),
                               lambda a: F.softmax(a.t(), 1) if F else None)
    c["reshape_transposed"] = (dict(a=r(2, 3), b=r(6)), lambda a, b: a.T.reshape(-1) * b,
                               lambda a, b: a.t().reshape(-1) * b)
    c["conv_permuted"] = (dict(a=r(1, 4, 5, 2), w=r(3, 2, 3, 3)),
                          lambda a, w: np_conv2d(a.transpose(0, 3, 1, 2), w, None, 1, 1),
                          lambda a, w: F.conv2d(a.permute(0, 3, 1, 2), w, padding=1) if F else None)
    c["view_of_view"] = (dict(a=r(4, 5), b=r(12)), lambda a, b: a.T[0:3].T.reshape(-1) - b,
                         lambda a, b: a.t()[0:3].transpose(0, 1).contiguous().view(-1) - b)
    # matmul broadcasting batch dimensions as torch.matmul, bmm
    mm = lambda a, b: a @ b
    c["matmul_bcast_left"] = (dict(a=r(3, 4), b=r(2, 4, 5)), mm, mm)
    c["matmul_vec_batch"] = (dict(a=r(5), b=r(3, 5, 2)), mm, mm)
    c["matmul_bcast_one"] = (dict(a=r(2, 3, 4), b=r(1, 4, 5)), mm, mm)
    c["matmul_mv"] = (dict(a=r(3, 4), b=r(4)), mm, mm)
    c["matmul_dot"] = (dict(a=r(4), b=r(4)), lambda a, b: np.float64(a @ b), mm)
    c["matmul_batch_mv"] = (dict(a=r(2, 1, 3, 4), b=r(4)), mm, mm)
    c["matmul_4d"] = (dict(a=r(2, 1, 3, 4), b=r(3, 4, 2)), mm, mm)
    c["bmm"] = (dict(a=r(3, 2, 4), b=r(3, 5, 4)), lambda a, b: a @ b.transpose(0, 2, 1),
                lambda a, b: T.bmm(a, b.transpose(1, 2)))
    c["bmm_one"] = (dict(a=r(1, 2, 3), b=r(1, 3, 2)), mm, lambda a, b: T.bmm(a, b))
    # reductions along dims (reduce.nv), cat / stack / split / chunk (join.nv)
    c["max_dim"] = (dict(a=r(3, 5)), lambda a: a.max(1) + a.argmax(1),
                    lambda a: T.max(a, 1).values + T.max(a, 1).indices)
    c["min_keepdim"] = (dict(a=r(3, 4)), lambda a: a.T.min(0, keepdims=True) * 2 + a.T.argmin(0)[None],
                        lambda a: T.min(a.t(), 0, keepdim=True).values * 2 + T.min(a.t(), 0, keepdim=True).indices)
    c["amax_all"] = (dict(a=r(3, 4)), lambda a: np.float64(a.max()), lambda a: T.amax(a))
    c["amin_dim"] = (dict(a=r(2, 3, 4)), lambda a: a.min(-1, keepdims=True), lambda a: T.amin(a, -1, keepdim=True))
    c["var_dim"] = (dict(a=r(3, 5)), lambda a: a.var(1, ddof=1), lambda a: a.var(1))
    c["var_biased_keepdim"] = (dict(a=r(4, 3)), lambda a: a.var(0, keepdims=True),
                               lambda a: a.var(0, unbiased=False, keepdim=True))
    c["std_all"] = (dict(a=r(3, 4)), lambda a: np.float64(a.std(ddof=1)), lambda a: a.std())
    lse = lambda x, d, k=False: np.log(np.exp(x).sum(d, keepdims=k))
    c["logsumexp"] = (dict(a=r(3, 5, lo=-3, hi=3)), lambda a: lse(a, 1), lambda a: T.logsumexp(a, 1))
    c["logsumexp_keepdim"] = (dict(a=r(3, 4, lo=-3, hi=3)), lambda a: lse(a.T, 0, True),
                              lambda a: T.logsumexp(a.t(), 0, keepdim=True))
    c["cat"] = (dict(a=r(2, 3), b=r(4, 2)), lambda a, b: np.concatenate([a, b.T, a[:, :1]], 1),
                lambda a, b: T.cat([a, b.t(), a[:, :1]], 1))
    c["stack"] = (dict(a=r(2, 3), b=r(2, 3)), lambda a, b: np.stack([a, b], 1), lambda a, b: T.stack([a, b], 1))
    c["split"] = (dict(a=r(3, 5)), lambda a: a[:, 0:2] * a[:, 2:4] + np.concatenate([a[:, 4:], a[:, 4:]], 1),
                  lambda a: a[:, 0:2] * a[:, 2:4] + T.cat([a[:, 4:], a[:, 4:]], 1))
    c["chunk"] = (dict(a=r(5, 2), b=r(5, 2)), lambda a, b: np.concatenate([a[4:], a[:2], a[2:4]], 0) * b,
                  lambda a, b: T.cat([T.chunk(a, 3, 0)[i] for i in (2, 0, 1)], 0) * b)
    c["split_sizes"] = (dict(a=r(2, 4)), lambda a: a[:, 1:] * a[:, :1], lambda a: T.split(a, [1, 3], -1)[1] * T.split(a, [1, 3], -1)[0])
    # losses with integer labels, ignore_index, label smoothing; BCE
    def np_ce_full(x, t, ignore=-100, eps=0.0):
        lp = np_log_softmax(x)
        keep = t != ignore
        ti = np.where(keep, t, 0).astype(int)
        nll = -lp[np.arange(len(t)), ti]
        smooth = -lp.mean(1)
        return ((1 - eps) * nll + eps * smooth)[keep].mean()
    c["ce_ignore"] = (dict(a=r(4, 3, lo=-2, hi=2), target=np.array([0., 2., 1., 2.])),
                      lambda a, target: np_ce_full(a, target, 2),
                      lambda a, target: F.cross_entropy(a, target.long(), ignore_index=2) if F else None)
    c["ce_smoothing"] = (dict(a=r(5, 3, lo=-2, hi=2), target=np.array([4., 0., 1.])),
                         lambda a, target: np_ce_full(a.T, target, -100, 0.1),
                         lambda a, target: F.cross_entropy(a.t(), target.long(), label_smoothing=0.1) if F else None)
    c["ce_labels"] = (dict(a=r(3, 5, lo=-2, hi=2)), lambda a: np_ce_full(a, np.array([4, 0, 2]), 0, 0.2),
                      lambda a: F.cross_entropy(a, T.tensor([4, 0, 2]), ignore_index=0, label_smoothing=0.2) if F else None)
    c["bce"] = (dict(a=r(3, 4, lo=-3, hi=3), y=r(3, 4, lo=0, hi=1)),
                lambda a, y: -(y * np.log(sig(a)) + (1 - y) * np.log(1 - sig(a))).mean(),
                lambda a, y: F.binary_cross_entropy(T.sigmoid(a), y) if F else None)
    c["bce_logits"] = (dict(a=r(3, 4, lo=-3, hi=3), y=r(3, 4, lo=0, hi=1)),
                       lambda a, y: -(y * np.log(sig(a)) + (1 - y) * np.log(1 - sig(a))).mean(),
                       lambda a, y: F.binary_cross_entropy_with_logits(a, y) if F else None)
    # indexing with int64 tensors
    c["index_select"] = (dict(a=r(3, 4)), lambda a: a.T[:, [2, 0, 2]],
                         lambda a: T.index_select(a.t(), 1, T.tensor([2, 0, 2])))
    gi = np.array([[0, 2], [2, 1], [1, 0]])
    c["gather"] = (dict(a=r(3, 4)), lambda a: np.take_along_axis(a, gi, 1),
                   lambda a: T.gather(a, 1, T.tensor(gi)))
    c["embedding"] = (dict(a=r(4, 3)), lambda a: a[np.array([[1, 3], [1, 0]])],
                      lambda a: F.embedding(T.tensor([[1, 3], [1, 0]]), a) if F else None)
    # element-wise math and activations (pointwise.nv kernels)
    erf = np.vectorize(math.erf)
    c["exp"] = (dict(a=r(3, 4)), lambda a: np.exp(a.T), lambda a: T.exp(a.t()))
    c["log"] = (dict(a=r(3, 4, lo=0.2, hi=3)), lambda a: np.log(a), lambda a: T.log(a))
    c["log1p"] = (dict(a=r(3, 4, lo=-0.5, hi=1e-3)), lambda a: np.log1p(a), lambda a: T.log1p(a))
    c["sqrt"] = (dict(a=r(3, 4, lo=0.2, hi=3)), lambda a: np.sqrt(a), lambda a: T.sqrt(a))
    c["rsqrt"] = (dict(a=r(2, 4, lo=0.2, hi=3)), lambda a: 1 / np.sqrt(a[:, 0:4:2]),
                  lambda a: T.rsqrt(a[:, 0:4:2]))
    c["abs"] = (dict(a=r(3, 4)), lambda a: np.abs(a), lambda a: T.abs(a))
    c["sign"] = (dict(a=r(3, 4)), lambda a: np.sign(a) * a, lambda a: T.sign(a) * a)
    c["neg"] = (dict(a=r(3, 4)), lambda a: -a, lambda a: T.neg(a))
    c["tanh"] = (dict(a=r(3, 4, lo=-2, hi=2)), lambda a: np.tanh(a), lambda a: T.tanh(a))
    c["sigmoid"] = (dict(a=r(3, 4, lo=-4, hi=4)), lambda a: sig(a), lambda a: T.sigmoid(a))
    c["pow_scalar"] = (dict(a=r(3, 4, lo=0.1, hi=2)), lambda a: a ** 3 + np.abs(a) ** 0.5,
                       lambda a: a.pow(3.0) + a.abs().pow(0.5))
    c["pow"] = (dict(a=r(3, 4, lo=0.2, hi=2), b=r(4, lo=-1.5, hi=2)), lambda a, b: a ** b,
                lambda a, b: T.pow(a, b))
    c["clamp"] = (dict(a=r(4, 5)), lambda a: np.clip(a, -0.5, 0.25), lambda a: T.clamp(a, -0.5, 0.25))
    c["minimum"] = (dict(a=r(3, 4), b=r(4)), lambda a, b: np.minimum(a, b), lambda a, b: T.minimum(a, b))
    c["maximum"] = (dict(a=r(4, 3), b=r(3, 1)), lambda a, b: np.maximum(a.T, b),
                    lambda a, b: T.maximum(a.t(), b))
    c["where"] = (dict(a=r(3, 4), b=r(1, 4)), lambda a, b: np.where(a > b, a, b * 2),
                  lambda a, b: T.where(a > b, a, b * 2))
    cmp = lambda a, b: ((a == b) + (a != b) * 2.0 + (a < b) * 4.0 + (a <= b) * 8.0 + (a > b) * 16.0 + (a >= b) * 32.0) * a
    c["compare"] = (dict(a=np.array([[0.5, -1.0, 0.25], [0.0, 2.0, -0.5]]), b=np.array([0.5, 0.0, 1.0])), cmp, cmp)
    c["gelu"] = (dict(a=r(3, 5, lo=-3, hi=3)), lambda a: 0.5 * a * (1 + erf(a / math.sqrt(2))),
                 lambda a: F.gelu(a) if F else None)
    c["gelu_tanh"] = (dict(a=r(3, 5, lo=-3, hi=3)),
                      lambda a: 0.5 * a * (1 + np.tanh(math.sqrt(2 / math.pi) * (a + 0.044715 * a ** 3))),
                      lambda a: F.gelu(a, approximate="tanh") if F else None)
    c["silu"] = (dict(a=r(4, 3, lo=-4, hi=4)), lambda a: a.T * sig(a.T), lambda a: F.silu(a.t()) if F else None)
    c["softmax_dim0"] = (dict(a=r(3, 4, lo=-3, hi=3)), lambda a: np.exp(a) / np.exp(a).sum(0, keepdims=True),
                         lambda a: F.softmax(a, 0) if F else None)
    c["log_softmax_mid"] = (dict(a=r(2, 3, 4, lo=-3, hi=3)),
                            lambda a: np_log_softmax(a.transpose(0, 2, 1)),
                            lambda a: F.log_softmax(a.transpose(1, 2), 1) if F else None)
    return c


POINTWISE = ["exp", "log", "log1p", "sqrt", "rsqrt", "abs", "sign", "neg", "tanh", "sigmoid",
             "pow_scalar", "pow", "clamp", "minimum", "maximum", "where", "compare", "gelu",
             "gelu_tanh", "silu"]
NO_FD = {"compare"}   # piecewise constant with ties: finite differences are meaningless there


def tol(name):
    return TOL_EW if name in POINTWISE else TOL


@pytest.fixture(scope="module")
def ops_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("ops")


@pytest.fixture(scope="module")
def frost_results(ops_dir):
    """Run every case through Frost once: {case: (inputs, gout, out, {input: grad})}."""
    d = ops_dir
    res = {}
    for name, (inputs, f, _) in cases().items():
        out_ref = np.asarray(f(**inputs))
        gout = r(*out_ref.shape) if out_ref.shape else np.array(0.7)
        lines = []
        for k, v in inputs.items():
            save(d / f"{name}.{k}", v)
            lines.append(f"{k} {','.join(map(str, v.shape)) or '-'}")
        (d / f"{name}.shapes").write_text("\n".join(lines) + "\n")
        save(d / f"{name}.gout", gout)
        res[name] = (inputs, gout, out_ref)
    run_nv(HERE / "ops_driver.nv", str(d), *res, cwd=d)
    out = {}
    for name, (inputs, gout, out_ref) in res.items():
        got = load(d / f"{name}.out", out_ref.shape)
        grads = {k: load(d / f"{name}.grad_{k}", v.shape) for k, v in inputs.items() if k != "target" and not k.startswith("buf_")}
        out[name] = (inputs, gout, got, grads)
    return out


@pytest.mark.parametrize("name", list(cases()))
def test_forward_and_backward_vs_numpy_and_finite_differences(frost_results, name):
    inputs, gout, got, grads = frost_results[name]
    _, f, _ = cases()[name]
    assert rel_err(got, f(**inputs)) < tol(name), "forward"
    if name in NO_FD:
        return
    for k, g in grads.items():
        fd = finite_diff(f, {a: b.copy() for a, b in inputs.items()}, k, gout)
        assert rel_err(g, fd) < tol(name), f"d/d{k}"


@pytest.mark.parametrize("name", list(cases()))
def test_forward_and_backward_vs_pytorch(frost_results, name):
    torch = torch_or_skip()
    inputs, gout, got, grads = frost_results[name]
    _, _, tf = cases(torch)[name]
    ts = {k: torch.tensor(v, dtype=torch.float64, requires_grad=(k != "target" and not k.startswith("buf_"))) for k, v in inputs.items()}
    y = tf(**ts)
    (y * torch.tensor(gout, dtype=torch.float64)).sum().backward()
    assert rel_err(got, y.detach().numpy()) < tol(name), "forward"
    for k, g in grads.items():
        want = ts[k].grad.numpy() if ts[k].grad is not None else np.zeros_like(g)   # unused input
        assert rel_err(g, want) < tol(name), f"d/d{k}"


def test_pointwise_host_loops_match_kernels(frost_results, ops_dir):
    """FROST_KERNELS=0 runs pointwise.nv's plain-loop twins: same values as the kernels."""
    run_nv(HERE / "ops_driver.nv", str(ops_dir), *POINTWISE, cwd=ops_dir, env={"FROST_KERNELS": "0"})
    for name in POINTWISE:
        inputs, _, got, grads = frost_results[name]
        assert rel_err(load(ops_dir / f"{name}.out", got.shape), got) < 1e-6, name
        for k, g in grads.items():
            assert rel_err(load(ops_dir / f"{name}.grad_{k}", g.shape), g) < 1e-6, f"{name} d/d{k}"
