"""The PyTorch side of `nsm bench resnet18 | resnet20`, run as its own process so its peak RSS and
thread count are its own: `python -m nsm.bench.torch_side CONFIG.json`.

It builds the network from the same definition as Frost (torch_models.RESNETS), loads Frost's
initial weights (out/init.safetensors), and trains on the same batches in the same order with
the same augmentation (data.Batches, data.aug_params), optimizer and hyper-parameters, timing
each step as the Frost driver does; it writes out/torch.json in the driver's format.
"""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np

from ..files import write_atomic


def main(config_path: str) -> None:
    import torch
    from . import data
    from .torch_models import build, load_safetensors

    cfg = json.loads(Path(config_path).read_text())
    out = Path(cfg["out"])
    torch.set_num_threads(cfg["threads"])
    torch.manual_seed(cfg["seed"])
    model = build(cfg["model"])
    load_safetensors(model, out / "init.safetensors")
    dev = torch.device(cfg.get("device", "cpu"))
    model = model.to(dev)
    if cfg["channels_last"]:
        model = model.to(memory_format=torch.channels_last)
    model.train()
    if cfg["optimizer"] == "sgd":
        opt = torch.optim.SGD(model.parameters(), lr=cfg["lr"], momentum=cfg["momentum"],
                              weight_decay=cfg["weight_decay"], nesterov=cfg["nesterov"])
    else:
        opt = torch.optim.AdamW(model.parameters(), lr=cfg["lr"], betas=(cfg["beta1"], cfg["beta2"]),
                                eps=cfg["eps"], weight_decay=cfg["weight_decay"])

    parts = [data.read_cifar(Path(f)) for f in cfg["train_files"]]
    labels = np.concatenate([p[0] for p in parts])
    images = np.concatenate([p[1] for p in parts])
    test = data.read_cifar(Path(cfg["test_file"])) if cfg["test_file"] else None
    batches = data.Batches(labels, images, cfg["batch"], cfg["seed"])
    pad, flip, mean, std = cfg["crop_pad"], cfg["flip"], cfg["mean"], cfg["std"]

    def evaluate() -> float:
        model.eval()
        correct = 0
        with torch.no_grad():
            tl, ti = test
            for s in range(0, len(tl), cfg["batch"]):
                x = ti[s:s + cfg["batch"]].astype(np.float32) * np.float32(1.0 / 255.0)
                z = np.zeros(len(x), np.int64)
                xt = torch.from_numpy(data.crop_flip_normalize(x, z, z, z, 0, mean, std))
                pred = model(xt.to(dev)).argmax(1).cpu().numpy()
                correct += int((pred == tl[s:s + cfg["batch"]]).sum())
        model.train()
        return correct / max(len(tl), 1)

    rec = {k: [] for k in ("step_s", "step_cpu_s", "loss", "data_wait_s", "transform_s", "eval_steps", "accuracy")}
    total = cfg["warmup"] + cfg["steps"]
    start = time.perf_counter()
    for step in range(total):
        t0 = time.perf_counter()
        c0 = time.process_time()
        y, x = batches.next()
        w1 = time.perf_counter()
        dy, dx, fl = data.aug_params(cfg["seed"], step, len(y), pad, flip)
        xt = torch.from_numpy(np.ascontiguousarray(data.crop_flip_normalize(x, dy, dx, fl, pad, mean, std)))
        if cfg["channels_last"]:
            xt = xt.to(memory_format=torch.channels_last)
        t1 = time.perf_counter()
        loss = torch.nn.functional.cross_entropy(model(xt.to(dev)), torch.from_numpy(y).to(dev))
        loss.backward()
        opt.step()
        opt.zero_grad()
        lv = loss.item()
        t2 = time.perf_counter()
        rec["step_s"].append(t2 - t0)
        rec["step_cpu_s"].append(time.process_time() - c0)
        rec["loss"].append(lv)
        rec["data_wait_s"].append(w1 - t0)
        rec["transform_s"].append(t1 - w1)
        ev = cfg["eval_every"]
        if ev > 0 and test is not None and step >= cfg["warmup"] and (step + 1 - cfg["warmup"]) % ev == 0:
            rec["eval_steps"].append(step + 1)
            rec["accuracy"].append(evaluate())
    rec.update(system="torch", warmup=cfg["warmup"], wall_s=time.perf_counter() - start,
               num_parameters=sum(p.numel() for p in model.parameters()),
               torch_threads=torch.get_num_threads())
    write_atomic(out / "torch.json", json.dumps(rec))
    print(f"torch: {total} steps in {rec['wall_s']:.1f} s, last loss {rec['loss'][-1]:.4f}")


if __name__ == "__main__":
    main(sys.argv[1])
