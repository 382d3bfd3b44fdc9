"""Learning-rate schedules of packages/frost/schedule.nv against torch.optim.lr_scheduler
(torch==2.13.0, the `test` extra): StepLR, CosineAnnealingLR (past T_max too) and OneCycleLR
(two and three phases, cos and linear, its momentum for SGD and beta1 for AdamW) over many
steps. One Neve program prints every schedule; the values must agree to 1e-12 relative (both
sides compute in binary64 with the same formulas). With CI=true a missing torch fails the
tests instead of skipping them."""
from __future__ import annotations

import math
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

NSM = [str(Path(sys.executable).parent / "nsm")]


def _in_subprocess(code: str, *args: str) -> str:
    """Run `code` in a fresh Python: importing torch here would grow the pytest process by
    hundreds of MB, which every later child process inherits in its ru_maxrss (Linux keeps the
    peak across fork and exec), upsetting memory tests. A missing torch skips (fails with CI=true)."""
    p = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                       timeout=300)
    if p.returncode != 0 and "No module named 'torch'" in p.stderr:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("torch is missing (CI=true): install the `test` extra")
        pytest.skip("torch is not installed")
    assert p.returncode == 0, p.stderr
    return p.stdout


def run(tmp: Path, body: str) -> subprocess.CompletedProcess:
    (tmp / "prog.nv").write_text(textwrap.dedent(body).lstrip())
    return subprocess.run(NSM + ["run", "prog.nv"], cwd=tmp, capture_output=True, text=True,
                          timeout=300)


# name -> (Neve constructor, steps); the torch side is built by torch_values() from the name.
CASES = {
    "step_a": ("schedule.StepLR(0.1, 3, 0.5)", 40),
    "step_b": ("schedule.StepLR(0.05, 30)", 100),
    "cos_a": ("schedule.CosineAnnealingLR(0.1, 10, 0.001)", 60),
    "cos_b": ("schedule.CosineAnnealingLR(1.0, 7)", 30),
    "one_a": ("schedule.OneCycleLR(0.001, total_steps=100)", 100),
    "one_mlp": ("schedule.OneCycleLR(0.001, epochs=10, steps_per_epoch=63)", 630),
    "one_b": ("schedule.OneCycleLR(0.01, epochs=3, steps_per_epoch=7, pct_start=0.25, "
              "anneal_strategy=\"linear\", three_phase=true, base_momentum=0.8, "
              "max_momentum=0.9, div_factor=10.0, final_div_factor=100.0)", 21),
    "one_c": ("schedule.OneCycleLR(0.1, total_steps=37, three_phase=true)", 37),
}


TORCH_SCRIPT = """
import json, sys
import torch
import torch.optim.lr_scheduler as S
CASES = json.loads(sys.argv[1])


def values(name, steps):
    p = [torch.nn.Parameter(torch.zeros(2))]
    adam = name in ("one_a", "one_mlp")
    opt = torch.optim.AdamW(p, lr=0.1) if adam else torch.optim.SGD(p, lr=0.1, momentum=0.9)
    if name == "step_a":
        opt.param_groups[0]["lr"] = 0.1
        s = S.StepLR(opt, 3, 0.5)
    elif name == "step_b":
        opt.param_groups[0]["lr"] = 0.05
        s = S.StepLR(opt, 30)
    elif name == "cos_a":
        s = S.CosineAnnealingLR(opt, 10, 0.001)
    elif name == "cos_b":
        opt.param_groups[0]["lr"] = 1.0
        s = S.CosineAnnealingLR(opt, 7)
    elif name == "one_a":
        s = S.OneCycleLR(opt, 0.001, total_steps=100)
    elif name == "one_mlp":
        s = S.OneCycleLR(opt, 0.001, epochs=10, steps_per_epoch=63)
    elif name == "one_b":
        s = S.OneCycleLR(opt, 0.01, epochs=3, steps_per_epoch=7, pct_start=0.25,
                         anneal_strategy="linear", three_phase=True, base_momentum=0.8,
                         max_momentum=0.9, div_factor=10.0, final_div_factor=100.0)
    else:
        s = S.OneCycleLR(opt, 0.1, total_steps=37, three_phase=True)
    out = []
    for i in range(steps):
        g = opt.param_groups[0]
        out.append((g["lr"], g["betas"][0] if adam else g["momentum"]))
        opt.step()
        if i < steps - 1:
            s.step()
    return out


print(json.dumps({name: values(name, steps) for name, steps in CASES.items()}))
"""


@pytest.fixture(scope="module")
def torch_values() -> dict[str, list[tuple[float, float]]]:
    """(lr, momentum) before each optimizer step of every case, from torch (a subprocess)."""
    import json
    steps = {name: n for name, (_, n) in CASES.items()}
    return json.loads(_in_subprocess(TORCH_SCRIPT, json.dumps(steps)))


@pytest.fixture(scope="module")
def neve_values(tmp_path_factory) -> dict[str, list[tuple[float, float]]]:
    tmp = tmp_path_factory.mktemp("schedule")
    lines = ["import frost/schedule", "main"]
    for name, (ctor, steps) in CASES.items():
        kind = ctor.split("(")[0]
        mom = "s.get_last_momentum()" if "OneCycle" in kind else "0.0"
        lines += [f"    if true",
                  f"        {kind} s = new {ctor}",
                  f"        [0..{steps}] i",
                  f"            print(\"{name} \", s.get_last_lr(), \" \", {mom})",
                  f"            if i < {steps - 1}",
                  f"                s.step()"]
    p = run(tmp, "\n".join(lines) + "\n")
    assert p.returncode == 0, p.stderr
    got: dict[str, list[tuple[float, float]]] = {}
    for line in p.stdout.splitlines():
        name, lr, mom = line.split()
        got.setdefault(name, []).append((float(lr), float(mom)))
    return got


@pytest.mark.parametrize("name", list(CASES))
def test_matches_torch(neve_values, torch_values, name):
    steps = CASES[name][1]
    want = torch_values[name]
    got = neve_values[name]
    assert len(got) == steps
    for i, ((lr, mom), (tlr, tmom)) in enumerate(zip(got, want)):
        assert math.isclose(lr, tlr, rel_tol=1e-12, abs_tol=1e-300), (name, i, lr, tlr)
        if name.startswith("one"):
            assert math.isclose(mom, tmom, rel_tol=1e-12), (name, i, mom, tmom)


def test_one_cycle_past_total_steps_fails(tmp_path):
    p = run(tmp_path, """
        import frost/schedule
        main
            schedule.OneCycleLR s = new schedule.OneCycleLR(0.1, total_steps=3)
            [0..4]
                s.step()
            print("unreachable")
        """)
    assert p.returncode == 1
    assert "OneCycleLR: tried to step 4 times; total_steps is 3" in p.stderr
    assert "unreachable" not in p.stdout
