"""`nsm build`: plan the package's build graph, write `build.ninja`, let ninja do the work.

Outputs go to `<package>/build/<profile>/` (profile `debug` or `release`): `obj/`, `nvi/`,
`stamps/`, `bin/<name>`, `tests/<name>`, and `.nsm/` (the FileDB and the last plan). A build
whose every recorded file keeps its stat tuple skips planning entirely and only asks ninja,
which is what keeps a no-op build near ninja's own time.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import NsmError
from .stamps import FileDB, stamp, write_if_changed

PLAN_VERSION = 1
STATUS = "@@nsm "


@dataclass
class BuildResult:
    ok: bool
    ran: list[str] = field(default_factory=list)     # descriptions of the edges ninja ran
    output: str = ""                                 # compiler messages, ninja errors
    executables: dict[str, Path] = field(default_factory=dict)   # "bin:name"/"test:name" -> path
    planned: bool = False                            # False when the no-op fast path was taken
    seconds: float = 0.0
    exit_code: int = 0


@dataclass
class Context:
    """What plug-ins see while writing edges."""
    root: Path
    build_dir: Path
    release: bool
    graph: object = None
    natives: dict = field(default_factory=dict)

    def obj(self, m) -> str:
        return str(self.build_dir / "obj" / f"{m.key}.o")

    def nvi(self, m) -> str:
        return str(self.build_dir / "nvi" / f"{m.key}.nvi")

    def stamp(self, m) -> str:
        return str(self.build_dir / "stamps" / f"{m.key}.stamp")


def build_dir_of(root: Path, release: bool) -> Path:
    return root / "build" / ("release" if release else "debug")


def _targets_wanted(root: Path, tests: bool) -> tuple[list[tuple[str, str, Path]], list[Path]]:
    """Executables ((name, kind, root module)) and library entry modules of the package."""
    import tomllib
    from compiler.modules import module_root, package_entry
    try:
        data = tomllib.loads((root / "neve.toml").read_text())
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise NsmError(f"cannot read {root / 'neve.toml'}: {e}")
    name = data.get("package", {}).get("name", root.name)
    exes: list[tuple[str, str, Path]] = []
    bins = data.get("bin", [])
    if not isinstance(bins, list) or not all(isinstance(b, dict) and isinstance(b.get("path"), str)
                                             for b in bins):
        raise NsmError(f"{root / 'neve.toml'}: [[bin]] entries need a path",
                       '[[bin]]\nname = "tool"\npath = "src/tool.nv"')
    for b in bins:
        p = root / b["path"]
        if not p.is_file():
            raise NsmError(f"{root / 'neve.toml'}: [[bin]] path '{b['path']}' does not exist")
        exes.append((str(b.get("name") or p.stem), "bin", p.resolve()))
    if not bins and (module_root(root) / "main.nv").is_file():
        exes.append((name, "bin", (module_root(root) / "main.nv").resolve()))
    if tests and (root / "tests").is_dir():
        for t in sorted((root / "tests").glob("*.nv")):
            exes.append((t.stem, "test", t.resolve()))
    libs = [package_entry(root).resolve()] if package_entry(root).is_file() else []
    return exes, libs


def _toolchain_files() -> list[str]:
    from .. import paths
    root = paths.toolchain_root()
    out = []
    for sub in ("compiler", "runtime_cpp", "nsm/build"):
        for dirpath, _, files in os.walk(root / sub):
            out += [os.path.join(dirpath, f) for f in files
                    if f.endswith((".py", ".cpp", ".h", ".hpp", ".nv"))]
    return sorted(out)


def plan_and_write(root: Path, bdir: Path, release: bool, tests: bool, db: FileDB,
                   ran: list[str], verbose: bool = False) -> dict:
    """Plan the graph, write stamps and build.ninja; return the plan record. Native parts
    are built on the way (their steps appended to `ran`)."""
    from . import graph as G
    from .ninja_file import LINK, link_edge, render
    from .plugins import load_plugins
    from .runtime import ensure_runtime
    exes, libs = _targets_wanted(root, tests)
    anchor = exes[0][2] if exes else (libs[0] if libs else root / "neve.toml")
    g = G.plan(db, exes, anchor, libs)
    ctx = Context(root, bdir, release, g, g.natives)
    for m in g.modules.values():
        if not m.generated:
            d = db.digest(str(m.path))
            if d is not None:
                stamp(bdir / "stamps", m.key, d)
    rt = ensure_runtime()
    native_args, native_libs = {}, {}
    for pkg, spec in g.natives.items():      # built first, by its own ninja file
        ran += build_native_only(spec, verbose)
        native_args[pkg], native_libs[pkg] = spec.link_args(), [str(spec.library)]
        for src in spec.sources:
            db.watch(str(src.parent))         # a new file may now match a source glob
    rules, edges, extra_outputs = [LINK], [], []
    extra_objects: dict[Path, list[str]] = {}      # objects of other plug-ins, per package
    packages = sorted({m.package for m in g.modules.values() if m.package is not None})
    for name, plugin in load_plugins().items():
        if name == "cxx":                     # native parts: above
            continue
        rules += plugin.rules(ctx)
        for pkg in packages:
            e, products = plugin.edges(ctx, pkg)
            edges += e
            extra_outputs += products.outputs
            if name != "neve":
                extra_objects.setdefault(pkg, []).extend(products.objects)
            if products.link_args or products.libraries:
                native_args.setdefault(pkg, []).extend(products.link_args)
                native_libs.setdefault(pkg, []).extend(products.libraries)
    defaults, executables = list(extra_outputs), {}
    for u in g.units:
        defaults += [ctx.obj(m) for m in u.modules]
    for name, kind, _ in exes:
        ex = next(x for x in g.executables if x.name == name and x.kind == kind)
        out = str(bdir / ("bin" if kind == "bin" else "tests") / name)
        reached = {m.package for u in ex.units for m in u.modules}
        objs = [ctx.obj(m) for u in ex.units for m in u.modules]
        objs += [o for p in sorted(reached & set(extra_objects)) for o in extra_objects[p]]
        pk = [p for p in native_args if p in reached]
        edges.append(link_edge(out, objs, str(rt.lib), rt.link_args,
                               [a for p in pk for a in native_args[p]],
                               [a for p in pk for a in native_libs[p]]))
        defaults.append(out)
        executables[f"{kind}:{name}"] = out
    write_if_changed(bdir / "build.ninja", render(rules, edges, defaults).encode())
    keep = {str(m.path) for m in g.modules.values()}
    for f in [str(root / "neve.toml"), str(root / "neve.lock"), *_toolchain_files()]:
        db.digest(f)
        keep.add(f)
    for p, rec in list(db.files.items()):
        if rec.get("absent") or (rec.get("stat") and "sha" not in rec):
            keep.add(p)                   # watched candidates and folders stay watched
    for d in {str(m.path.parent) for m in g.modules.values()} | {str(root / "tests")}:
        db.watch(d)
        keep.add(d)
    db.prune(keep)
    return {"version": PLAN_VERSION, "release": release, "tests": tests,
            "executables": executables,
            "native": [str(spec.out_dir) for pkg, spec in g.natives.items() if pkg == root]}


def build_package(root: Path, *, release: bool = False, tests: bool = False,
                  verbose: bool = False) -> BuildResult:
    """Build the package at `root` (its executables, its library modules, with `tests` its
    tests/*.nv programs). Never raises for compile errors: see BuildResult.ok/output."""
    t0 = time.perf_counter()
    root = root.resolve()
    bdir = build_dir_of(root, release)
    meta = bdir / ".nsm"
    meta.mkdir(parents=True, exist_ok=True)
    db = FileDB(meta / "files.json")
    try:
        plan = json.loads((meta / "plan.json").read_text())
    except (OSError, ValueError):
        plan = None
    fresh = (plan is not None and plan.get("version") == PLAN_VERSION and
             plan.get("tests") == tests and (bdir / "build.ninja").is_file() and
             db.all_unchanged())
    ran: list[str] = []
    try:
        if not fresh:
            plan = plan_and_write(root, bdir, release, tests, db, ran, verbose)
            db.save()
            write_if_changed(meta / "plan.json", json.dumps(plan, sort_keys=True).encode())
        else:
            for d in plan.get("native", []):      # the package's own C/C++ may have changed
                r = run_ninja(Path(d), verbose)
                if not r.ok:
                    raise NsmError("building the package's native part failed:\n" + r.output.rstrip())
                ran += r.ran
    except NsmError as e:
        return BuildResult(False, output=e.render(), exit_code=1)
    if fresh:
        res = run_ninja(bdir, verbose)
    else:                                  # something changed: edges will likely compile
        from .compile_server import Server
        with Server() as server:
            res = run_ninja(bdir, verbose, env=server.env)
    res.ran[:0] = ran
    res.planned = not fresh
    res.executables = {k: Path(v) for k, v in plan["executables"].items()}
    res.seconds = time.perf_counter() - t0
    return res


def run_ninja(bdir: Path, verbose: bool = False, targets: list[str] = (),
              env: dict[str, str] | None = None) -> BuildResult:
    """Run ninja in `bdir`; collect the edges it ran and the commands' own messages."""
    env = dict(os.environ, NINJA_STATUS=STATUS, **(env or {}))
    from ..paths import ninja_binary
    ninja = ninja_binary()       # (not runtime._ninja_bin: that import costs the no-op path)
    if ninja is None:
        return BuildResult(False, output="error: ninja not found (pip install ninja)\n",
                           exit_code=1)
    p = subprocess.Popen([ninja, "-C", str(bdir), *targets], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, env=env)
    res = BuildResult(True)
    lines = []
    skip_command = False
    for line in p.stdout:
        if line.startswith(STATUS):
            res.ran.append(line[len(STATUS):].rstrip("\n"))
            if verbose:
                sys.stderr.write("  " + line[len(STATUS):])
            continue
        if skip_command:                     # the command line after "FAILED:"
            skip_command = False
            continue
        if line.startswith("FAILED: "):
            skip_command = True
            continue
        if line.startswith(("ninja: Entering directory", "ninja: no work to do",
                            "ninja: build stopped")):
            continue
        lines.append(line)
    rc = p.wait()
    res.output = "".join(lines)
    res.ok = rc == 0
    res.exit_code = 0 if rc == 0 else (3 if "internal compiler error" in res.output else 1)
    return res


def build_native_only(spec, verbose: bool = False) -> list[str]:
    """Build one package's native part in `<root>/build/native/` (its own small ninja file);
    return the steps run. NsmError with the compiler's messages when it fails."""
    from .ninja_file import render
    from .plugins.cxx import CxxPlugin
    ctx = Context(spec.root, spec.out_dir, False, None, {spec.root: spec})
    plugin = CxxPlugin()
    edges, _ = plugin.edges(ctx, spec.root)
    spec.out_dir.mkdir(parents=True, exist_ok=True)
    write_if_changed(spec.out_dir / "build.ninja",
                     render(plugin.rules(ctx), edges, [e.outputs[0] for e in edges]).encode())
    res = run_ninja(spec.out_dir, verbose)
    if not res.ok:
        raise NsmError(f"building the native part of package '{spec.name}' failed:\n"
                       + res.output.rstrip())
    if res.output.strip():
        sys.stderr.write(res.output)
    return res.ran
