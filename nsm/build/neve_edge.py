"""The ninja edge that compiles one Neve build unit (a module or an import cycle).

    python -m nsm.build.neve_edge --build-dir D --cv VERSION [--release]
        [--import KEY]... --keys KEY,... --depfile F -- SRC...

The compiler is fed D/imports.json, the import map the planner wrote.

Looks the unit up in the content-addressed store first (nsm.build.cas), so a unit already
compiled anywhere with the same inputs costs a copy; otherwise asks the build's warm compile
server (nsm.build.compile_server, $NSM_COMPILE_SERVER), or compiles in this process. Outputs
`D/obj/<key>.o`, `D/nvi/<key>.nvi` and `D/ptx/<key>.ptx` (the checked PTX of the module's
kernels, empty when it has none) are rewritten only when their bytes change, which with
ninja's `restat` is the early cut-off: an edit that leaves a module's interface alone rebuilds
none of its importers, and one that leaves its object alone relinks nothing. Diagnostics go
to stderr exactly as `nsm run` prints them; the exit status is the compiler's (1 errors,
3 internal).
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from . import cas
from .stamps import write_if_changed


def _args(argv: list[str]) -> dict:
    opts = {"imports": [], "release": False, "srcs": []}
    it = iter(argv)
    for a in it:
        if a == "--":
            opts["srcs"] = list(it)
        elif a == "--release":
            opts["release"] = True
        elif a in ("--build-dir", "--cv", "--depfile", "--keys"):
            opts[a[2:].replace("-", "_")] = next(it)
        elif a == "--import":
            opts["imports"].append(next(it))
        else:
            raise SystemExit(f"neve_edge: unexpected argument {a!r}")
    return opts


def _compile(srcs: list[Path], nvi_dir: Path, imports: Path, release: bool) -> dict:
    server = os.environ.get("NSM_COMPILE_SERVER")
    if server:
        from .compile_server import request
        ans = request(server, os.getcwd(), [str(s) for s in srcs], str(nvi_dir), str(imports),
                      release)
        if ans is not None:
            return ans
    from compiler.imports import ImportMap
    from compiler.unit import compile_unit
    res = compile_unit(srcs, nvi_dir, ImportMap.read(imports), release=release)
    return {"ok": res.ok, "exit_code": res.exit_code, "diagnostics": res.diagnostics,
            "objects": res.objects, "interfaces": res.interfaces, "ptx": res.ptx,
            "warnings": res.warnings, "interfaces_read": res.interfaces_read}


def _entry(res: dict) -> dict[str, bytes]:
    """The content-store entry of a compiled unit (cas.py): its files by name."""
    files = {f"{k}.o": v for k, v in res["objects"].items()}
    files.update({f"{k}.nvi": v for k, v in res["interfaces"].items()})
    files.update({f"{k}.ptx": (v or "").encode() for k, v in res["ptx"].items()})
    files["read.json"] = json.dumps(sorted(res["interfaces_read"])).encode()
    files["warnings.txt"] = res["warnings"].encode()
    return files


def _complete(hit: dict[str, bytes] | None, keys: list[str]) -> bool:
    """Whether a store entry holds every file this edge writes (older entries may not)."""
    need = [f"{k}.{ext}" for k in keys for ext in ("o", "nvi", "ptx")]
    return hit is not None and all(n in hit for n in need + ["read.json", "warnings.txt"])


def main(argv: list[str]) -> int:
    o = _args(argv)
    build = Path(o["build_dir"])
    nvi_dir, obj_dir, ptx_dir = build / "nvi", build / "obj", build / "ptx"
    srcs = [Path(s) for s in o["srcs"]]
    keys = o["keys"].split(",")          # the planner's stable module keys, one per source
    try:
        parts = [o["cv"].encode(), b"release" if o["release"] else b"debug"]
        for k, s in zip(keys, srcs):
            parts += [k.encode(), s.read_bytes()]
        for k in sorted(o["imports"]):
            parts += [k.encode(), (nvi_dir / f"{k}.nvi").read_bytes()]
    except OSError as e:
        sys.stderr.write(f"error: cannot read {e.filename}: {e.strerror}\n")
        return 1
    key = cas.key_of(parts)
    hit = cas.lookup(key)
    if not _complete(hit, keys):
        from .. import paths
        res = _compile(srcs, nvi_dir, paths.import_map_file(build), o["release"])
        if not res["ok"]:
            sys.stderr.write(res["diagnostics"])
            return res["exit_code"] or 1
        hit = _entry(res)
        cas.store(key, hit)
    sys.stderr.write(hit["warnings.txt"].decode())
    for k in keys:
        write_if_changed(obj_dir / f"{k}.o", hit[f"{k}.o"])
        write_if_changed(nvi_dir / f"{k}.nvi", hit[f"{k}.nvi"])
        write_if_changed(ptx_dir / f"{k}.ptx", hit[f"{k}.ptx"])
    read = json.loads(hit["read.json"])
    deps = " ".join(str(nvi_dir / f"{k}.nvi") for k in read if k not in keys)
    Path(o["depfile"]).write_text(f"{obj_dir / (keys[0] + '.o')}: {deps}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
