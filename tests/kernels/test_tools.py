"""`nsm doctor`, the PTX a unit compile carries out and the `kernel` build plug-in (GPU-free)."""
from __future__ import annotations

from click.testing import CliRunner

from pathlib import Path

from nsm.build.plugins.kernel import listed
from nsm.cli import cli

HERE = Path(__file__).parent


def test_doctor_reports_every_part_and_exits_0():
    res = CliRunner().invoke(cli, ["doctor"])
    assert res.exit_code == 0, res.output
    names = [line.split()[1] for line in res.output.splitlines()]
    assert names[:5] == ["g++", "ninja", "runtime", "ptxas", "libdevice"]
    assert names[5] == "gpu"                 # one line per GPU, or one saying why none
    assert "Traceback" not in res.output


def compile_units(src: Path, nvi: Path) -> list:
    """compile_unit over the units of the program at `src`, std first."""
    from tests.unit_compile.harness import plan_units
    from compiler.unit import compile_unit
    nvi.mkdir(exist_ok=True)
    results = []
    units, imports = plan_units(src)
    for unit in units:
        results.append(compile_unit(unit, nvi, imports))
        for key, data in results[-1].interfaces.items():
            (nvi / f"{key}.nvi").write_bytes(data)
    return results


def test_unit_result_carries_the_ptx_per_module(tmp_path):
    """PTX is a stage output: the unit compile returns each module's PTX (None without
    kernels); the object embeds the same text for the runtime."""
    std, prog = compile_units(HERE / "programs" / "ids.nv", tmp_path)
    assert std.ok and prog.ok, prog.diagnostics
    assert set(std.ptx.values()) == {None}                   # std defines no kernel
    [(key, ptx)] = prog.ptx.items()
    assert ptx.count(".visible .entry") == 2 and ".target sm_80" in ptx
    assert ptx.encode() in prog.objects[key] and prog.warnings == ""


def test_unit_without_libdevice_warns_and_keeps_the_reason(monkeypatch, tmp_path):
    monkeypatch.setenv("NEVE_LIBDEVICE", str(tmp_path / "absent.bc"))
    from compiler.unit import shown_path
    src = HERE / "programs" / "math_gpu.nv"
    *_, prog = compile_units(src, tmp_path / "nvi")
    src = shown_path(src)                      # as diagnostics name it
    assert prog.ok, prog.diagnostics
    [ptx] = prog.ptx.values()
    why = "libdevice.10.bc not found (install nvidia-nvvm==13.0.*, or set NEVE_LIBDEVICE)"
    assert ptx == f"// no PTX for the kernels of {src}: {why}\n"
    assert prog.warnings == (f"warning: no PTX for the kernels of {src}: {why}; they run on "
                             "the CPU back end only\n")


def test_ptx_that_ptxas_rejects_is_an_internal_error(monkeypatch, tmp_path):
    from compiler.backends import ptxas

    def reject(ptx, entries, **kw):
        raise ptxas.PtxasError("ptxas -arch=sm_80 rejected the PTX:\nbad")
    monkeypatch.setattr(ptxas, "assemble", reject)
    from compiler.unit import shown_path
    src = HERE / "programs" / "ids.nv"
    *_, prog = compile_units(src, tmp_path)
    src = shown_path(src)
    assert (prog.ok, prog.exit_code, prog.ptx) == (False, 3, {})
    assert prog.diagnostics == (f"error: internal compiler error: PTX of module {src}: "
                                "ptxas -arch=sm_80 rejected the PTX:\nbad\n")


def test_listed_takes_the_ptx_files_of_modules_with_kernels(tmp_path):
    (tmp_path / "ptx").mkdir()
    (tmp_path / "ptx" / "a__k.ptx").write_text(".version 8.0\n")
    (tmp_path / "ptx" / "a__plain.ptx").write_text("")
    assert listed(tmp_path) == [tmp_path / "ptx" / "a__k.ptx"]
    assert listed(tmp_path / "absent") == []


def test_nsm_build_writes_checked_ptx_per_module_with_kernels(tmp_path):
    """build/<profile>/ptx/<module key>.ptx, written by the compile of each module (empty
    without kernels), rewritten only when its bytes change; `--emit ptx` lists the ones with
    kernels."""
    import subprocess
    import sys
    from pathlib import Path
    nsm = Path(sys.executable).parent / "nsm"
    root = tmp_path / "kp"
    (root / "src").mkdir(parents=True)
    (root / "neve.toml").write_text('[package]\nname = "kp"\nversion = "0.1.0"\nsrc = "src"\n')
    prog = (Path(__file__).parent / "programs" / "atomics.nv").read_text()
    (root / "src" / "main.nv").write_text("import util\n" + prog.replace(
        "    int n = 1000\n", "    int n = util.twice(500)\n"))
    (root / "src" / "util.nv").write_text("def int twice(int x)\n    return 2 * x\n")

    def build(*flags):
        p = subprocess.run([str(nsm), "build", *flags], cwd=root, capture_output=True,
                           text=True, timeout=600)
        assert p.returncode == 0, p.stderr
        return p

    listing = build("--emit", "ptx").stdout.splitlines()
    out = root / "build" / "debug" / "ptx"
    assert listing == [str(out / "kp__src_main.ptx")]
    ptx = (out / "kp__src_main.ptx").read_text()
    assert ".visible .entry" in ptx and "_hist(" in ptx
    assert sorted(p.name for p in out.iterdir()) == ["kp__src_main.ptx", "kp__src_util.ptx",
                                                     "std__include.ptx"]
    assert (out / "kp__src_util.ptx").read_bytes() == b""
    before = (out / "kp__src_main.ptx").stat().st_mtime_ns
    (root / "src" / "util.nv").write_text("def int twice(int x)\n    return x + x\n")
    build()                     # the same PTX bytes for main: its file is left alone
    assert (out / "kp__src_main.ptx").stat().st_mtime_ns == before
    run = subprocess.run([str(root / "build" / "debug" / "bin" / "kp")], capture_output=True,
                         text=True, timeout=60, env={"NEVE_DEVICE": "cpu"})
    assert run.stdout.splitlines()[:2] == ["[125, 125, 125, 125, 125, 125, 125, 125]", "1000"]


def test_gpu_function_from_another_module_reaches_the_ptx(tmp_path):
    """Under separate compilation a kernel calling an imported gpu function still gets PTX
    (the function's body travels in its module's interface) and runs on the CPU back end."""
    import subprocess
    import sys
    from pathlib import Path
    nsm = Path(sys.executable).parent / "nsm"
    root = tmp_path / "gp"
    (root / "src").mkdir(parents=True)
    (root / "neve.toml").write_text('[package]\nname = "gp"\nversion = "0.1.0"\nsrc = "src"\n')
    (root / "src" / "mathx.nv").write_text("gpu float twice(float v)\n    return 2.0 * v\n")
    (root / "src" / "main.nv").write_text(
        "import mathx\n\nkernel void scale(float[] y, int n)\n    int i = bx * bdx + tx\n"
        "    if i < n\n        y[i] = mathx.twice(y[i]) + float(i)\n\nmain\n    int n = 300\n"
        "    float[] y = to_device(ones_float(n))\n    launch [n /| 128] [128] scale(y, n)\n"
        "    print(to_array(y, n)[299])\n")
    p = subprocess.run([str(nsm), "build"], cwd=root, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    ptx = (root / "build" / "debug" / "ptx" / "gp__src_main.ptx").read_text()
    assert ".visible .entry" in ptx and "no body" not in ptx
    run = subprocess.run([str(root / "build" / "debug" / "bin" / "gp")], capture_output=True,
                         text=True, timeout=60, env={"NEVE_DEVICE": "cpu"})
    assert run.stdout == "301.0\n", run.stderr
