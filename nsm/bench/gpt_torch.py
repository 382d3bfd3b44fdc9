"""The PyTorch side of `nsm bench gpt`, run as its own process (its peak RSS and threads are its
own): `python -m nsm.bench.gpt_torch CONFIG.json`.

The model is the nanoGPT layout (Karpathy, github.com/karpathy/nanoGPT, model.py) written out
here: token and position embeddings, pre-LayerNorm blocks of causal self-attention and a GELU
MLP, a final LayerNorm and a head tied to the token embedding; no biases (nanoGPT's
`bias=False`). It loads Frost's initial weights (out/init.safetensors, PyTorch's names), trains
on the same batches (out/batches.txt) with the same AdamW groups, learning-rate schedule and
gradient clipping, compares its first-step gradients with Frost's (out/grads1.safetensors) and
writes out/torch.json in the Frost driver's format.
"""
from __future__ import annotations

import json
import math
import sys
import time
from pathlib import Path

import numpy as np

from ..files import write_atomic


def build_model(cfg: dict):
    """The nanoGPT-layout GPT for cfg's vocab, n_layer, n_head, n_embd and block sizes."""
    import torch
    from torch import nn
    from torch.nn import functional as F

    class Attention(nn.Module):
        def __init__(self):
            super().__init__()
            self.c_attn = nn.Linear(cfg["n_embd"], 3 * cfg["n_embd"], bias=False)
            self.c_proj = nn.Linear(cfg["n_embd"], cfg["n_embd"], bias=False)

        def forward(self, x):
            b, t, c = x.shape
            h = cfg["n_head"]
            q, k, v = self.c_attn(x).split(c, dim=2)
            q, k, v = (z.view(b, t, h, c // h).transpose(1, 2) for z in (q, k, v))
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            return self.c_proj(y.transpose(1, 2).contiguous().view(b, t, c))

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.c_fc = nn.Linear(cfg["n_embd"], 4 * cfg["n_embd"], bias=False)
            self.c_proj = nn.Linear(4 * cfg["n_embd"], cfg["n_embd"], bias=False)

        def forward(self, x):
            return self.c_proj(F.gelu(self.c_fc(x)))

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln_1 = nn.LayerNorm(cfg["n_embd"], bias=False)
            self.attn = Attention()
            self.ln_2 = nn.LayerNorm(cfg["n_embd"], bias=False)
            self.mlp = MLP()

        def forward(self, x):
            x = x + self.attn(self.ln_1(x))
            return x + self.mlp(self.ln_2(x))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.transformer = nn.ModuleDict(dict(
                wte=nn.Embedding(cfg["vocab_size"], cfg["n_embd"]),
                wpe=nn.Embedding(cfg["block_size"], cfg["n_embd"]),
                h=nn.ModuleList([Block() for _ in range(cfg["n_layer"])]),
                ln_f=nn.LayerNorm(cfg["n_embd"], bias=False)))
            self.lm_head = nn.Linear(cfg["n_embd"], cfg["vocab_size"], bias=False)
            self.lm_head.weight = self.transformer.wte.weight

        def forward(self, idx, targets):
            pos = torch.arange(idx.shape[1])
            x = self.transformer.wte(idx) + self.transformer.wpe(pos)
            for block in self.transformer.h:
                x = block(x)
            logits = self.lm_head(self.transformer.ln_f(x))
            return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))

    return GPT()


def lr_at(cfg: dict, it: int) -> float:
    """nanoGPT's schedule: linear warm-up over warmup_iters, then cosine decay to min_lr at
    lr_decay_iters (the same formula as the Frost driver)."""
    if it < cfg["warmup_iters"]:
        return cfg["lr"] * (it + 1) / (cfg["warmup_iters"] + 1)
    if it > cfg["lr_decay_iters"]:
        return cfg["min_lr"]
    ratio = (it - cfg["warmup_iters"]) / (cfg["lr_decay_iters"] - cfg["warmup_iters"])
    return cfg["min_lr"] + 0.5 * (1.0 + math.cos(math.pi * ratio)) * (cfg["lr"] - cfg["min_lr"])


def read_batches(path: Path) -> tuple[list[list[int]], dict[str, list[list[int]]]]:
    """batches.txt: lines `train o1 o2 ...` (one a step) and `eval train|val o1 o2 ...`."""
    train, evals = [], {"train": [], "val": []}
    for line in path.read_text().splitlines():
        w = line.split()
        if w[0] == "train":
            train.append([int(x) for x in w[1:]])
        else:
            evals[w[1]].append([int(x) for x in w[2:]])
    return train, evals


def main(config_path: str) -> None:
    import torch
    from safetensors.torch import load_file

    cfg = json.loads(Path(config_path).read_text())
    out = Path(cfg["out"])
    torch.set_num_threads(cfg["threads"])
    text = Path(cfg["text"]).read_bytes()
    chars = sorted(set(text))
    index = {c: i for i, c in enumerate(chars)}
    ids = np.array([index[c] for c in text], dtype=np.int64)
    split = int(len(ids) * 0.9)
    data = {"train": torch.from_numpy(ids[:split]), "val": torch.from_numpy(ids[split:])}
    cfg["vocab_size"] = len(chars)
    model = build_model(cfg)
    init = load_file(str(out / "init.safetensors"))
    init["lm_head.weight"] = init["transformer.wte.weight"]
    model.load_state_dict(init, strict=True)
    decay = [p for p in model.parameters() if p.dim() >= 2]
    no_decay = [p for p in model.parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": cfg["weight_decay"]},
                             {"params": no_decay, "weight_decay": 0.0}],
                            lr=cfg["lr"], betas=(cfg["beta1"], cfg["beta2"]), eps=1e-8)
    train, evals = read_batches(out / "batches.txt")
    block = cfg["block_size"]

    def batch(split_name: str, offsets: list[int]):
        d = data[split_name]
        x = torch.stack([d[o:o + block] for o in offsets])
        y = torch.stack([d[o + 1:o + 1 + block] for o in offsets])
        return x, y

    def estimate() -> dict:
        model.eval()
        res = {}
        with torch.no_grad():
            for name in ("train", "val"):
                res[name] = float(np.mean([model(*batch(name, o)).item() for o in evals[name]]))
        model.train()
        return res

    rec = {k: [] for k in ("step_s", "loss", "data_wait_s", "transform_s", "eval_steps",
                           "train_loss", "val_loss")}
    start = time.perf_counter()
    for step, offsets in enumerate(train):
        t0 = time.perf_counter()
        x, y = batch("train", offsets)
        t1 = time.perf_counter()
        for g in opt.param_groups:
            g["lr"] = lr_at(cfg, step)
        loss = model(x, y)
        loss.backward()
        if step == 0:
            rec["grad_max_rel_diff"] = compare_grads(model, out / "grads1.safetensors")
        if cfg["grad_clip"] > 0:
            torch.nn.utils.clip_grad_norm_(model.parameters(), cfg["grad_clip"])
        opt.step()
        opt.zero_grad(set_to_none=True)
        lv = loss.item()
        t2 = time.perf_counter()
        rec["step_s"].append(t2 - t0)
        rec["loss"].append(lv)
        rec["data_wait_s"].append(t1 - t0)
        rec["transform_s"].append(0.0)
        ev = cfg["eval_interval"]
        if ev > 0 and ((step + 1) % ev == 0 or step + 1 == len(train)):
            e = estimate()
            rec["eval_steps"].append(step + 1)
            rec["train_loss"].append(e["train"])
            rec["val_loss"].append(e["val"])
    rec.update(system="torch", warmup=cfg["warmup"], wall_s=time.perf_counter() - start,
               num_parameters=sum(p.numel() for p in model.parameters()),
               torch_threads=torch.get_num_threads())
    write_atomic(out / "torch.json", json.dumps(rec))
    print(f"torch: {len(train)} steps in {rec['wall_s']:.1f} s, last loss {rec['loss'][-1]:.4f}")


def compare_grads(model, path: Path) -> float | None:
    """Largest |g_torch - g_frost| / max|g_torch| over the parameters, per tensor (None when
    Frost wrote no gradients)."""
    if not path.exists():
        return None
    from safetensors.torch import load_file
    frost = load_file(str(path))
    worst = 0.0
    for name, p in model.named_parameters():
        if name not in frost or p.grad is None:
            continue
        g = p.grad.double()
        scale = max(g.abs().max().item(), 1e-12)
        worst = max(worst, (g - frost[name].double()).abs().max().item() / scale)
    return worst


if __name__ == "__main__":
    main(sys.argv[1])
