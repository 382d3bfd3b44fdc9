"""A third-party compiler plug-in, registered through the `nsm.compilers` entry-point group,
adds its own ninja rules and edges; its objects are linked into the package's executables."""
from __future__ import annotations

import os
import subprocess

from .helpers import BIN, Package

PLUGIN = '''
from nsm.build.plugins import Edge, Products, Rule


class CObjPlugin:
    """Compiles csrc/*.c of the package being built into objects linked into its programs."""
    name = "cobj"
    suffixes = (".c",)

    def version(self):
        return "1"

    def rules(self, ctx):
        return [Rule("cobj_cc", "gcc -O2 -c $in -o $out", "COBJ $out")]

    def edges(self, ctx, package):
        if package != ctx.root:
            return [], Products()
        edges, objs = [], []
        for c in sorted((package / "csrc").glob("*.c")):
            o = str(ctx.build_dir / "cobj" / (c.stem + ".o"))
            edges.append(Edge([o], "cobj_cc", [str(c)]))
            objs.append(o)
        return edges, Products(objects=objs)
'''


def test_entry_point_plugin(tmp_path):
    site = tmp_path / "site"
    (site / "nsm_cobj-1.0.dist-info").mkdir(parents=True)
    (site / "nsm_cobj.py").write_text(PLUGIN)
    (site / "nsm_cobj-1.0.dist-info" / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: nsm-cobj\nVersion: 1.0\n")
    (site / "nsm_cobj-1.0.dist-info" / "entry_points.txt").write_text(
        "[nsm.compilers]\ncobj = nsm_cobj:CObjPlugin\n")
    p = Package(tmp_path / "app", files={
        "csrc/add.c": "long add3(long x) { return x + 3; }\n",
        "src/main.nv": "proto int add3(int x)\nmain\n    print(add3(39))\n"})
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(site), *filter(None, [os.environ.get("PYTHONPATH")])])}    # (keeps the tree tested)
    r = subprocess.run([str(BIN / "nsm"), "build", "-v"], cwd=p.root, env=env,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    assert "gcc -O2 -c " in r.stderr            # -v: the plug-in's command line as run
    assert p.run_exe() == "42\n"
    r = subprocess.run([str(BIN / "nsm"), "build", "-v"], cwd=p.root, env=env,
                       capture_output=True, text=True, timeout=600)
    assert "nothing to do" in r.stderr
