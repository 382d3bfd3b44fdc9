"""`nsm build` and `nsm run`: plan the build graph, write `build.ninja` and the import map, let
ninja do the work. One path for packages and for files run alone.

Outputs go to the build folder (nsm.paths: `<package>/build/<profile>/`, or for a file outside
every package `$NEVE_HOME/cache/programs/<name>-<hash>/<profile>/`): `obj/`, `nvi/`, `stamps/`,
`imports.json`, `bin/<name>`, `tests/<name>`, `run/<file>-<hash>` (files run with `nsm run FILE`)
and `.nsm/` (the FileDB and the last plan). A build whose every recorded file keeps its stat
tuple skips planning entirely and only asks ninja, which keeps a no-op build near ninja's own
time; `nsm run FILE` then skips ninja too when that file's executable was built by this plan.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from .. import paths
from ..errors import NsmError
from .stamps import FileDB, stamp, write_if_changed

PLAN_VERSION = 4


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
        return str(paths.build_file(self.build_dir, "obj", m.key))

    def nvi(self, m) -> str:
        return str(paths.build_file(self.build_dir, "nvi", m.key))

    def stamp(self, m) -> str:
        return str(paths.build_file(self.build_dir, "stamps", m.key))


@dataclass(frozen=True)
class Target:
    """What a build is asked for: the package at `root` (None: a file outside every package,
    alone in its own build folder), with `tests` its tests/*.nv, and `scripts`, files run with
    `nsm run FILE` (linked on request only, never default targets)."""
    root: Path | None
    release: bool = False
    tests: bool = False
    scripts: tuple[Path, ...] = ()
    libs: tuple[str, ...] = ()          # system libraries linked into every executable (-l)

    @property
    def build_dir(self) -> Path:
        if self.root is None:
            return paths.script_build_dir(self.scripts[0], self.release)
        return paths.package_build_dir(self.root, self.release)

    @property
    def cwd(self) -> Path:
        """Where compiles run, so diagnostics name files as the user does."""
        return self.root if self.root is not None else self.scripts[0].parent


def _targets_wanted(target: Target, bdir: Path) -> tuple[list[tuple[str, str, Path, Path]], list[Path]]:
    """Executables ((name, kind, root module, output)) and library entry modules."""
    from .. import project
    exes: list[tuple[str, str, Path, Path]] = []
    for s in target.scripts:
        exes.append((str(s), "run", s, paths.script_executable(bdir, s)))
    root = target.root
    if root is None:
        return exes, []
    m = project.manifest(root)
    for b in m.bins:
        p = root / b.path
        if not p.is_file():
            raise NsmError(f"{m.path}: [[bin]] path '{b.path}' does not exist")
        exes.append((b.name, "bin", p.resolve(), bdir / "bin" / b.name))
    main = project.module_root(root) / "main.nv"
    if not m.bins and main.is_file():
        exes.append((m.name, "bin", main.resolve(), bdir / "bin" / m.name))
    if target.tests and (root / "tests").is_dir():
        for t in sorted((root / "tests").glob("*.nv")):
            exes.append((t.stem, "test", t.resolve(), bdir / "tests" / t.stem))
    return exes, _library_modules(root, {r for _, _, r, _ in exes})


SKIPPED_FOLDERS = {"tests", "examples", "build", "native", "include"}


def _library_modules(root: Path, programs: set[Path]) -> list[Path]:
    """The package's library: its entry module and every other module under its module root
    (as Go compiles every file of a package), except programs, and the tests/, examples/,
    build/, native/ and hidden folders, which are not library code."""
    from .. import project
    top = project.module_root(root)
    out = []
    entry = project.package_entry(root)
    if entry.is_file():
        out.append(entry.resolve())
    for dirpath, dirs, files in os.walk(top):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and not
                         (Path(dirpath) == top and d in SKIPPED_FOLDERS) and
                         not (Path(dirpath, d) / "neve.toml").exists())
        for f in sorted(files):
            p = Path(dirpath, f).resolve()
            if f.endswith(".nv") and p not in programs and p not in out:
                out.append(p)
    return out


def _toolchain_files() -> list[str]:
    root = paths.toolchain_root()
    out = []
    for sub in ("compiler", "runtime_cpp", "nsm/build"):
        for dirpath, _, files in os.walk(root / sub):
            out += [os.path.join(dirpath, f) for f in files
                    if f.endswith((".py", ".cpp", ".h", ".hpp", ".nv"))]
    return sorted(out)


def plan_and_write(target: Target, bdir: Path, db: FileDB, ran: list[str],
                   verbose: bool = False) -> dict:
    """Plan the graph, write stamps, the import map and build.ninja; return the plan record.
    Native parts are built on the way (their steps appended to `ran`)."""
    from . import graph as G
    from .ninja_file import LINK, link_edge, render
    from .plugins import load_plugins
    from .runtime import ensure_runtime
    exes, libs = _targets_wanted(target, bdir)
    anchor = exes[0][2] if exes else (libs[0] if libs else target.root / "neve.toml")
    g = G.plan(db, [(n, k, r) for n, k, r, _ in exes], anchor, libs)
    g.natives = {pkg: spec.for_profile(target.release) for pkg, spec in g.natives.items()}
    ctx = Context(target.cwd, bdir, target.release, g, g.natives)
    for m in g.modules.values():
        if not m.generated:
            d = db.digest(str(m.path))
            if d is not None:
                stamp(bdir / "stamps", m.key, d)
    write_if_changed(paths.import_map_file(bdir), g.imports.to_json().encode())
    rt = ensure_runtime()
    # per package: link arguments of other plug-ins (a native part's own come from
    # spec.link_args(folder) per executable: its rpath is relative to the executable)
    native_args, native_libs = {}, {}
    for pkg, spec in g.natives.items():      # built first, by its own ninja file
        ran += build_native_only(spec, verbose)
        native_args[pkg] = []
        native_libs[pkg] = [str(spec.library)] if spec.library is not None else []
    write_compile_commands(target, bdir, list(g.natives.values()))
    rules, edges, extra_outputs = [LINK], [], []
    extra_objects: dict[Path, list[str]] = {}      # objects of other plug-ins, per package
    packages = sorted({m.package for m in g.modules.values() if m.package is not None}, key=str)
    if any(m.package is None for m in g.modules.values()):
        packages.append(None)                 # files outside every package
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
    wanted: set[int] = set()
    for ex in g.executables:
        if ex.kind != "run":
            wanted |= {id(u) for u in ex.units}
    for lib in libs:
        wanted |= {id(u) for u in g.units if any(m.path == lib for m in u.modules)}
    for u in g.units:
        if id(u) in wanted:
            defaults += [ctx.obj(m) for m in u.modules]
    for name, kind, _, out in exes:
        ex = next(x for x in g.executables if x.name == name and x.kind == kind)
        reached = {m.package for u in ex.units for m in u.modules}
        objs = [ctx.obj(m) for u in ex.units for m in u.modules]
        objs += [o for p in sorted(reached & set(extra_objects), key=str) for o in extra_objects[p]]
        pk = [p for p in native_args if p in reached]
        edges.append(link_edge(str(out), objs, str(rt.lib), rt.link_args,
                               [a for p in pk for a in (g.natives[p].link_args(out.parent)
                                                        if p in g.natives else []) + native_args[p]]
                               + [f"-l{x}" for x in target.libs],
                               [a for p in pk for a in native_libs[p]]))
        if kind != "run":
            defaults.append(str(out))
        executables[f"{kind}:{name}"] = str(out)
    write_if_changed(bdir / "build.ninja", render(rules, edges, defaults).encode())
    keep = {str(m.path) for m in g.modules.values()}
    watched = [*_toolchain_files(), str(paths.global_lock_file())]
    if target.root is not None:
        watched += [str(target.root / "neve.toml"), str(target.root / "neve.lock")]
    for f in watched:
        db.digest(f)
        keep.add(f)
    for p, rec in list(db.files.items()):
        if rec.get("absent") or (rec.get("stat") and "sha" not in rec):
            keep.add(p)                   # watched candidates and folders stay watched
    folders = {str(m.path.parent) for m in g.modules.values()}
    if target.root is not None:
        folders.add(str(target.root / "tests"))
    for d in folders:
        db.watch(d)
        keep.add(d)
    db.prune(keep)
    # what the graph links from outside the build folder: a plan made for another NEVE_HOME
    # (or whose runtime or native libraries were removed) is planned again
    outside = [str(rt.lib)] + sorted(str(spec.library) for spec in g.natives.values()
                                     if getattr(spec, "sources", None))
    return {"version": PLAN_VERSION, "release": target.release, "tests": target.tests,
            "scripts": sorted(str(s) for s in target.scripts), "libs": list(target.libs),
            "home": str(paths.neve_home()), "outside": outside,
            "executables": executables,
            "native": sorted([str(pkg), str(spec.out_dir), *_native_goals(spec)]
                             for pkg, spec in g.natives.items() if _may_change(pkg))}


def write_compile_commands(target: Target, bdir: Path, specs: list) -> None:
    """`compile_commands.json` (clang's compilation database) of the native parts' C/C++ in the
    build folder, and in a package a link `build/compile_commands.json` to it, where clangd
    and other editors look."""
    from .plugins.cxx import compile_commands
    entries = [e for spec in sorted(specs, key=lambda s: str(s.root)) for e in compile_commands(spec)]
    if not entries:
        return
    write_if_changed(bdir / "compile_commands.json", json.dumps(entries, indent=2).encode() + b"\n")
    if target.root is not None and bdir.parent == target.root / "build":
        link = bdir.parent / "compile_commands.json"
        want = f"{bdir.name}/compile_commands.json"
        if not link.is_symlink() or os.readlink(link) != want:
            tmp = link.with_name(link.name + ".tmp")
            tmp.unlink(missing_ok=True)
            tmp.symlink_to(want)
            os.replace(tmp, link)


def _may_change(pkg: Path) -> bool:
    """Whether a native part is rechecked by a no-op build: not an installed package (an
    update changes the global lock, which re-plans). Bundled ones are: in a source checkout
    of the toolchain their C++ is edited like any other."""
    from .. import project
    return not project.resolved(pkg).is_relative_to(project.resolved(paths.lib_dir()))


def _native_unchanged(out: Path) -> bool:
    """Whether the native part built in `out` kept every file, glob folder and manifest
    (its FileDB: stat only)."""
    from .stamps import native_stamps_known
    db = FileDB(out / ".nsm" / "files.json")
    return (out / "build.ninja").is_file() and db.all_unchanged() and \
        native_stamps_known(out / "stamps", db)


def _natives_unchanged(plan: dict) -> bool:
    return all(_native_unchanged(Path(out)) for _pkg, out, *_goals in plan.get("native", []))


def build_package(root: Path, *, release: bool = False, tests: bool = False,
                  verbose: bool = False) -> BuildResult:
    """Build the package at `root` (its executables, its library modules, with `tests` its
    tests/*.nv programs). Never raises for compile errors: see BuildResult.ok/output."""
    return build(Target(root.resolve(), release, tests), verbose=verbose)


def build_file(file: Path, *, release: bool = False, verbose: bool = False,
               libs: tuple[str, ...] = ()) -> tuple[BuildResult, Path]:
    """Build the program whose root module is `file` (`nsm run FILE`), in its package's build
    folder when it lies inside a package (LANGUAGE.md 8), else in an anonymous package's,
    linking the system libraries `libs` (`nsm run -l z`); return the result and the
    executable's path."""
    from .. import project
    real = Path(file).resolve()
    if not real.is_file():
        why = "is a folder" if real.is_dir() else "No such file or directory"
        return BuildResult(False, output=f"error: cannot read {file}: {why}\n", exit_code=1), real
    root = project.package_root(real)
    target = Target(root, release, False, (real,), tuple(libs))
    res = build(target, verbose=verbose, only=str(real))
    return res, Path(res.executables.get(f"run:{real}", paths.script_executable(target.build_dir, real)))


def program(file: Path, *, release: bool = False, verbose: bool = False) -> Path:
    """The up-to-date executable of the program rooted at `file`; NsmError with the
    compilers' messages when it does not build."""
    res, exe = build_file(file, release=release, verbose=verbose)
    if not res.ok:
        raise NsmError(f"building {file} failed:\n{res.output.rstrip()}")
    return exe


def import_map_for(file: Path, verbose: bool = False):
    """The import map of the program rooted at `file`, for a whole-program compile (`nsm check`,
    `--emit`), with the native parts it reaches built first: the compiler reads their bindings."""
    from .graph import Planner
    from .native import ensure_native
    p = Planner(FileDB(), Path(file).resolve())
    p.node(Path(file))
    for spec in [s for s in p.natives.values() if s is not None]:
        ensure_native(spec.root, verbose, p.building)
    return p.import_map()


def whole_program(file, **kw):
    """compiler.driver.compile_file for the program rooted at `file`, fed its import map (the
    whole-program compile behind `nsm check` and `--emit`); NsmError for a bad manifest or a
    native part that does not build."""
    from compiler.driver import compile_file
    return compile_file(str(file), import_map_for(Path(file)), **kw)


def build(target: Target, *, verbose: bool = False, only: str | None = None) -> BuildResult:
    """Plan (unless nothing recorded changed) and run ninja for `target`. With `only` (a script's
    real path), build just that program, keeping the scripts the plan already knows."""
    t0 = time.perf_counter()
    bdir = target.build_dir
    meta = bdir / ".nsm"
    db = FileDB(meta / "files.json")
    try:
        plan = json.loads((meta / "plan.json").read_text())
    except (OSError, ValueError):
        plan = None
    known = set(plan.get("scripts", [])) if isinstance(plan, dict) else set()
    if target.root is not None:              # a package's build keeps the files run in it
        # (only files of this package: a build folder copied from elsewhere names others)
        scripts = {str(s) for s in target.scripts} | {
            s for s in known if Path(s).is_file() and Path(s).is_relative_to(target.root)}
        target = Target(target.root, target.release, target.tests or bool(
            plan and plan.get("tests") and only), tuple(Path(s) for s in sorted(scripts)),
            target.libs)
    fresh = (plan is not None and plan.get("version") == PLAN_VERSION and
             plan.get("tests") == target.tests and
             set(plan.get("scripts", [])) == {str(s) for s in target.scripts} and
             plan.get("libs", []) == list(target.libs) and
             plan.get("home") == str(paths.neve_home()) and
             all(os.path.exists(f) for f in plan.get("outside", ())) and
             (bdir / "build.ninja").is_file() and db.all_unchanged())
    exe = plan.get("executables", {}).get(f"run:{only}") if fresh and only else None
    if exe and (meta / "built").is_file() and only in _built(meta) and Path(exe).is_file() \
            and _natives_unchanged(plan):
        res = BuildResult(True, executables={k: Path(v) for k, v in plan["executables"].items()})
        res.seconds = time.perf_counter() - t0
        return res
    ran: list[str] = []
    try:
        if not fresh:
            if target.root is not None:      # a bad manifest writes nothing
                from .. import project
                project.reset()
                project.manifest(target.root)
            meta.mkdir(parents=True, exist_ok=True)
            (meta / "built").unlink(missing_ok=True)
            plan = plan_and_write(target, bdir, db, ran, verbose)
            db.save()
            write_if_changed(meta / "plan.json", json.dumps(plan, sort_keys=True).encode())
        else:
            for pkg, out, *goals in plan.get("native", []):    # its C/C++ may have changed
                ran += _refresh_native(Path(pkg), Path(out), goals, target.root, verbose,
                                       target.release)
    except NsmError as e:
        return BuildResult(False, output=e.render(), exit_code=1)
    except RuntimeError as e:              # runtime.RuntimeBuildError: g++'s own message
        return BuildResult(False, output=f"error: {e}\n", exit_code=1)
    goals = [plan["executables"][f"run:{only}"]] if only else []
    env = {"NSM_CWD": str(Path.cwd())}
    if fresh:
        res = run_ninja(bdir, verbose, goals, env)
    else:                                  # something changed: edges will likely compile
        from .compile_server import Server
        with Server() as server:
            res = run_ninja(bdir, verbose, goals, env={**env, **server.env})
    if not res.ok:                         # an undefined symbol: name its proto
        from .link_errors import explain
        res.output = explain(res.output, bdir) or res.output
    if res.ok and only:
        _mark_built(meta, only)
    res.ran[:0] = ran
    res.planned = not fresh
    res.executables = {k: Path(v) for k, v in plan["executables"].items()}
    res.seconds = time.perf_counter() - t0
    return res


def _built(meta: Path) -> set[str]:
    """Scripts whose executable the current plan has built (cleared at every re-plan)."""
    try:
        return set((meta / "built").read_text().splitlines())
    except OSError:
        return set()


def _mark_built(meta: Path, script: str) -> None:
    done = _built(meta)
    if script not in done:
        write_if_changed(meta / "built", "\n".join(sorted(done | {script})).encode() + b"\n")


def run_ninja(bdir: Path, verbose: bool = False, targets: list[str] = (),
              env: dict[str, str] | None = None) -> BuildResult:
    """Run ninja in `bdir`, showing its steps (nsm.progress.BuildSteps), or with `verbose` the
    command line of each as it starts (`ninja -v`); collect the edges it ran (their
    descriptions, or with `verbose` their command lines) and the commands' own messages."""
    from ..paths import ninja_binary
    from ..progress import BuildSteps, NinjaRun
    ninja = ninja_binary()       # (not runtime._ninja_bin: that import costs the no-op path)
    if ninja is None:
        return BuildResult(False, output="error: ninja not found (pip install ninja)\n",
                           exit_code=1)
    # -v: ninja names each step by its command line, which is what verbose prints
    run = NinjaRun([ninja, "-C", str(bdir), *(["-v"] if verbose else []), *targets],
                   {**os.environ, **(env or {})}, BuildSteps(verbose))
    res = BuildResult(True)
    lines = []
    skip_command = False
    for step, line in run:
        if step is not None:
            res.ran.append(step)
            if verbose:
                sys.stderr.write(f"{step}\n")
                sys.stderr.flush()
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
    res.output = "".join(lines)
    res.ok = run.returncode == 0
    res.exit_code = 0 if res.ok else (3 if "internal compiler error" in res.output else 1)
    return res


def _refresh_native(pkg: Path, out: Path, goals: list[str], building: Path | None,
                    verbose: bool, release: bool) -> list[str]:
    """A no-op build's look at a native part: ninja alone when none of its files, glob folders
    or manifest changed stat (its FileDB), else the whole native build (globs expanded again)."""
    if _native_unchanged(out):
        r = run_ninja(out, verbose, goals)
        if not r.ok:
            raise NsmError("building the package's native part failed:\n" + r.output.rstrip())
        return r.ran
    from .native import spec_of
    spec = spec_of(pkg, building)
    return build_native_only(spec.for_profile(release), verbose) if spec is not None else []


def _native_goals(spec) -> list[str]:
    """What a build of one profile asks of a native part: its library and the bindings."""
    return [str(p) for p in (spec.library, spec.bindings) if p is not None]


def build_native_only(spec, verbose: bool = False) -> list[str]:
    """Build one package's native part in its folder (nsm.project.native_build_dir: its own
    ninja file, stamps and FileDB, under a file lock: builds of two projects may share it);
    return the steps run. NsmError with the compiler's messages when it fails."""
    import fcntl                          # (not filelock: its import costs the no-op path)
    from .ninja_file import render
    from .plugins.cxx import CxxPlugin
    from .stamps import restamp_native
    out = spec.out_dir
    meta = out / ".nsm"
    meta.mkdir(parents=True, exist_ok=True)
    with open(meta / "lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        db = FileDB(meta / "files.json")
        restamp_native(out / "stamps", db, spec.inputs)
        watched = [str(spec.root / "neve.toml"), *map(str, spec.folders)]
        db.digest(watched[0])
        for d in watched[1:]:
            db.watch(d)
        db.prune({p for p, rec in db.files.items() if "stamp" in rec} | set(watched))
        db.save()
        ctx = Context(spec.root, out, False, None, {spec.root: spec})
        plugin = CxxPlugin()
        edges, _ = plugin.edges(ctx, spec.root)      # both profiles: the file is the same
        write_if_changed(out / "build.ninja",
                         render(plugin.rules(ctx), edges, [str(spec.bindings)]).encode())
        res = run_ninja(out, verbose, _native_goals(spec))
        restamp_native(out / "stamps", db, spec.inputs)     # learn the headers edges recorded
        db.save()
    if not res.ok:
        raise NsmError(f"building the native part of package '{spec.name}' failed:\n"
                       + res.output.rstrip())
    if res.output.strip():
        sys.stderr.write(res.output)
    return res.ran
