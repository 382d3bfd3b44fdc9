"""The PyTorch counterparts of frost/models.nv, built from the same definition (RESNETS) with
the same module tree, so parameter and buffer names match Frost's state_dict() and weights move
between the two through safetensors.

torch is imported lazily: `nsm bench --list` and the Frost side never need it.
"""
from __future__ import annotations

# The one definition both sides are built from: stem width, stage widths, blocks per stage,
# stride entering each stage, and whether the final linear layer has a bias. The Frost driver
# gets these numbers through its config (nsm/bench/resnet.py), and frost/models.nv's resnet18()
# and resnet20() spell out the same layouts.
RESNETS = {
    "resnet18": dict(stem=64, widths=(64, 128, 256, 512), depths=(2, 2, 2, 2),
                     strides=(1, 2, 2, 2), fc_bias=True, params=11_173_962),
    "resnet20": dict(stem=16, widths=(16, 32, 64), depths=(3, 3, 3), strides=(1, 2, 2),
                     fc_bias=False, params=272_464),
}


def build(name: str, num_classes: int = 10):
    """A torch.nn.Module for RESNETS[name]: x (N, 3, H, W) float32 -> logits (N, num_classes)."""
    import torch.nn as nn
    import torch.nn.functional as F

    class BasicBlock(nn.Module):
        def __init__(self, in_planes: int, planes: int, stride: int):
            super().__init__()
            self.conv1 = nn.Conv2d(in_planes, planes, 3, stride, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(planes)
            self.conv2 = nn.Conv2d(planes, planes, 3, 1, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(planes)
            self.shortcut = nn.Sequential()
            if stride != 1 or in_planes != planes:
                self.shortcut = nn.Sequential(nn.Conv2d(in_planes, planes, 1, stride, bias=False),
                                              nn.BatchNorm2d(planes))

        def forward(self, x):
            out = F.relu(self.bn1(self.conv1(x)))
            out = self.bn2(self.conv2(out))
            return F.relu(out + self.shortcut(x))

    class ResNet(nn.Module):
        def __init__(self, stem, widths, depths, strides, fc_bias):
            super().__init__()
            self.conv1 = nn.Conv2d(3, stem, 3, 1, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(stem)
            planes = stem
            for s, (w, d, st) in enumerate(zip(widths, depths, strides)):
                blocks = []
                for b in range(d):
                    blocks.append(BasicBlock(planes, w, st if b == 0 else 1))
                    planes = w
                self.add_module(f"layer{s + 1}", nn.Sequential(*blocks))
            self.nstages = len(widths)
            self.linear = nn.Linear(planes, num_classes, bias=fc_bias)

        def forward(self, x):
            h = F.relu(self.bn1(self.conv1(x)))
            for s in range(self.nstages):
                h = getattr(self, f"layer{s + 1}")(h)
            h = F.adaptive_avg_pool2d(h, 1).flatten(1)
            return self.linear(h)

    spec = RESNETS[name]
    return ResNet(spec["stem"], spec["widths"], spec["depths"], spec["strides"], spec["fc_bias"])


def load_safetensors(model, path) -> None:
    """Load a Frost state file into model: every parameter and BN running statistic must be
    there with the same shape (num_batches_tracked is PyTorch's alone). Error: ValueError."""
    import torch
    from safetensors.torch import load_file
    state = load_file(str(path))
    missing, unexpected = model.load_state_dict(state, strict=False)
    missing = [k for k in missing if not k.endswith("num_batches_tracked")]
    if missing or unexpected:
        raise ValueError(f"{path}: missing {missing}, unexpected {unexpected}")
    with torch.no_grad():
        for k, v in model.state_dict().items():
            if k.endswith("num_batches_tracked"):
                v.zero_()
