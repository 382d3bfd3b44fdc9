"""Every Frost kernel (packages/frost/*.nv, listed from the sources) has PTX that ptxas assembles
for sm_80 and sm_90 with its `.entry` (issue 19), so an op added without valid GPU code fails
here. With CI=true a missing ptxas fails the test (conftest.py)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from compiler.backends import ptxas
from nsm.build.orchestrate import whole_program as compile_file

HERE = Path(__file__).parent
FROST = HERE.parents[1] / "packages" / "frost"
KERNEL_DEF = re.compile(r"^kernel\s+\w+\s+(\w+)\s*\(", re.M)


def frost_kernels() -> dict[str, list[str]]:
    """Module name -> the kernels it defines, from the source text."""
    out = {}
    for p in sorted(FROST.glob("*.nv")):
        names = KERNEL_DEF.findall(p.read_text())
        if names:
            out[p.stem] = names
    return out


def test_the_listing_sees_the_kernels():
    k = frost_kernels()
    assert {"devices", "elementwise", "pointwise", "optim", "normalization", "attention",
            "dtypes", "conv_kernels", "index_kernels"} <= set(k)
    assert "gemm_k" in k["devices"] and "flash_fwd_k" in k["attention"]
    assert "conv_gemm_k" in k["conv_kernels"] and "nll_k" in k["index_kernels"]


@pytest.fixture(scope="module")
def modules() -> dict[str, str]:
    """The PTX of each Frost module with kernels, split at the `// module PATH` headers."""
    res = compile_file(str(HERE / "frost_all.nv"), emit="ptx")
    assert res.ok, res.diags.render_all()
    parts = re.split(r"^// module (\S+)\n", res.dump or "", flags=re.M)
    return {Path(parts[i]).stem: parts[i + 1] for i in range(1, len(parts), 2)}


@pytest.mark.parametrize("module", sorted(frost_kernels()))
def test_every_frost_kernel_assembles(module, modules, ptxas_tool):
    assert module in modules, f"frost/{module}.nv has kernels but no PTX module"
    ptx = modules[module]
    entries = [f"nv_frost__{module}_{k}" for k in frost_kernels()[module]]
    assert sorted(re.findall(r"\.entry\s+(\w+)\s*\(", ptx)) == sorted(entries)
    assert ".extern .func" not in ptx
    done = ptxas.assemble(ptx, entries, ptxas=ptxas_tool)
    assert [d.arch for d in done] == ["sm_80", "sm_90"]
