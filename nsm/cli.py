"""The `nsm` and `neve` command lines: parse arguments, call the layers below, print.

Imports of the compiler and build layers are lazy so `nsm --help` and a cached `nsm run`
start fast.
"""
from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import click

EMIT_STAGES = ("tokens", "ast", "typed", "ir", "llvm", "asm", "ptx", "obj")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="neve", prog_name="nsm")
def cli() -> None:
    """nsm: the Neve package manager and build orchestrator."""


def _run(file: str, args: tuple[str, ...], release: bool, emit: str | None, timings: bool,
         verbose: bool = False, libs: tuple[str, ...] = (), nproc: int | None = None) -> None:
    if emit is not None:
        _emit(file, emit, release)
        return
    from .build.orchestrate import build_file
    try:
        res, exe = build_file(Path(file), release=release, verbose=verbose, libs=libs)
    except OSError as e:            # e.g. an unwritable NEVE_HOME
        where = f" {e.filename}" if e.filename else ""
        sys.stderr.write(f"error: cannot write{where}: {e.strerror or e}\n"
                         f"hint: NEVE_HOME (default ~/.local/neve) must be a writable folder\n")
        sys.exit(1)
    except Exception as e:  # noqa: BLE001 - runtime build failures and the like
        sys.stderr.write(f"error: {e}\n")
        sys.exit(1)
    if res.output:
        sys.stderr.write(res.output)
    if not res.ok:
        sys.exit(res.exit_code or 1)
    if timings:                     # the stages of a whole-program compile, for the record
        for stage, t in _whole_program(file, release=release).timings.items():
            sys.stderr.write(f"{stage:>10}: {t * 1000:8.1f} ms\n")
    sys.stdout.flush()
    if nproc is not None:           # N ranks through mpirun (nsm/launch.py)
        from .launch import run_ranks
        sys.exit(run_ranks(str(exe), args, nproc))
    try:
        # OpenMP workers (oneDNN, Frost's native loops) spinning between parallel regions take
        # the cores from Neve's kernel threads: 4-8x slower Frost steps measured (packages/frost/README.md, "Threads")
        os.environ.setdefault("OMP_WAIT_POLICY", "passive")
        os.execv(str(exe), [file, *args])     # argv()[0] is the program's path (14.1)
    except OSError as e:
        sys.stderr.write(f"error: cannot run {exe}: {e.strerror}\n")
        sys.exit(1)


def _whole_program(file: str, **kw):
    """The whole-program compile of FILE fed its import map (nsm check, --emit)."""
    from .build.orchestrate import whole_program
    from .errors import NsmError
    if not os.path.isfile(file):
        sys.stderr.write(f"error: cannot read {file}: No such file or directory\n")
        sys.exit(1)
    try:
        return whole_program(file, **kw)
    except NsmError as e:
        _fail(e)


def _emit(file: str, stage: str, release: bool) -> None:
    res = _whole_program(file, release=release, emit=None if stage == "obj" else stage)
    if not res.ok:
        res.diags.print()
        sys.exit(res.exit_code or 1)
    if stage == "obj":
        for unit in res.units:          # one object per module, named as the file is shown
            shown = Path(os.path.relpath(Path(unit.path).resolve())).with_suffix("")
            plain = ".." not in shown.parts
            out = ("_".join(shown.parts) if plain else unit.key) + ".o"
            with open(out, "wb") as f:
                f.write(unit.object)
            click.echo(f"wrote {out} ({len(unit.object)} bytes)")
        return
    sys.stdout.write(res.dump or "")


@cli.command(context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False})
@click.option("--release", is_flag=True, help="Optimise fully and remove index bounds checks.")
@click.option("--emit", type=click.Choice(EMIT_STAGES),
              help="Print one compiler stage as text instead of running.")
@click.option("--timings", is_flag=True, help="Print the time of each compiler stage.")
@click.option("--bin", "bin_name", help="In a package: the executable to run.")
@click.option("-v", "--verbose", is_flag=True, help="Print the command line of every build step.")
@click.option("-l", "libs", multiple=True, metavar="LIB",
              help="Link the system library LIB, as cc -l (-l z for import c\"zlib.h\").")
@click.option("--nproc", type=click.IntRange(min=1), metavar="N",
              help="Run N ranks through mpirun on this machine (frost/distributed).")
@click.argument("file", required=False, type=click.Path(dir_okay=False))
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def run(file: str | None, args: tuple[str, ...], release: bool, emit: str | None, timings: bool,
        bin_name: str | None, verbose: bool, libs: tuple[str, ...], nproc: int | None) -> None:
    """Compile FILE (cached by content) and run it with ARGS.

    Without FILE (or with --bin), build the package in the current folder and run its
    executable. Standard input, output and the exit status are the program's own."""
    if bin_name is not None or file is None or (not file.endswith(".nv") and
                                                not os.path.exists(file)):
        if nproc is not None:
            sys.stderr.write("error: nsm run --nproc takes a program file (nsm run --nproc 2 prog.nv)\n")
            sys.exit(1)
        from .cli_build import run_package
        run_package(bin_name, ((file,) if file else ()) + args, release, verbose)
        return
    bad = next((x for x in libs if not re.fullmatch(r"[\w.+-]+", x)), None)
    if bad is not None:
        sys.stderr.write(f"error: -l {bad!r} is not a library name\n"
                         f"hint: name the library as cc -l does: -l z links libz\n")
        sys.exit(1)
    _run(file, args, release, emit, timings, verbose, libs, nproc)


@cli.command()
@click.argument("file", type=click.Path(dir_okay=False))
def check(file: str) -> None:
    """Type-check FILE without generating code."""
    res = _whole_program(file, check_only=True)
    if not res.ok:
        res.diags.print()
        sys.exit(res.exit_code or 1)


@cli.command()
def lsp() -> None:
    """Serve the Neve language server over standard input and output (for editors)."""
    from .lsp.server import main as serve
    serve()


@cli.command()
@click.option("--check", "check_only", is_flag=True,
              help="Change nothing; list the files that would change (exit 1 if any).")
@click.option("-v", "--verbose", is_flag=True,
              help="Name on stderr the files skipped for their '# nsm fmt: off' line.")
@click.argument("paths", nargs=-1, type=click.Path())
def fmt(check_only: bool, verbose: bool, paths: tuple[str, ...]) -> None:
    """Format .nv files (PATHS: files or folders; default: the current folder) in place."""
    from .fmt.command import run_fmt
    sys.exit(run_fmt(list(paths) or ["."], check_only, verbose))


# ---- packages: thin wrappers over nsm.install (resolution, fetching and installing live there)

def _fail(e) -> None:
    sys.stderr.write(e.render())
    sys.exit(1)


def _context(global_: bool = False):
    from pathlib import Path
    from .install.context import find
    return find(Path.cwd(), global_)


def _report(out, verb: str = "installed") -> None:
    for note in out.notes:
        click.echo(note, err=True)
    for p in out.installed:
        click.echo(f"{verb} {p.name} {p.version} ({p.commit[:12]})")
    if out.reused:
        names = ", ".join(f"{p.name} {p.version}" for p in out.reused)
        click.echo(f"{len(out.reused)} package(s) already installed: {names}")
    for r in out.removed:
        click.echo(f"removed {r}")


verbose_option = click.option("-v", "--verbose", is_flag=True, help="Print every step.")


@cli.command()
@click.argument("name")
def new(name: str) -> None:
    """Create package NAME: neve.toml, src/, tests/, README.md, .gitignore."""
    from pathlib import Path
    from .errors import NsmError
    from .scaffold import new_package
    try:
        root = new_package(Path.cwd(), name)
    except NsmError as e:
        _fail(e)
    click.echo(f"created package {name} in {root}")


@cli.command()
@click.argument("packages", nargs=-1)
@click.option("--locked", is_flag=True, help="Install exactly what neve.lock records; refuse drift.")
@click.option("--offline", is_flag=True, help="Use only the git mirrors already in the cache.")
@click.option("--global", "global_", is_flag=True, help="Use $NEVE_HOME/neve.lock even in a package.")
@verbose_option
def install(packages: tuple[str, ...], locked: bool, offline: bool, global_: bool,
            verbose: bool) -> None:
    """Install PACKAGES (user/pkg or user/pkg@ref) and their dependencies.

    Inside a package, they are added to its neve.toml and locked in its neve.lock; without
    PACKAGES, the manifest's dependencies are installed. Outside a package the choice is
    recorded in $NEVE_HOME/neve.lock, which scripts use."""
    _install(packages, None, locked, offline, global_, verbose)


def _install(packages, version, locked, offline, global_, verbose) -> None:
    from .errors import NsmError
    from .install import ops
    from .progress import Progress
    from .registry.names import parse_spec
    try:
        specs = [parse_spec(p) for p in packages]
        ctx = _context(global_)
        with Progress(verbose) as progress:
            out = ops.install(ctx, specs, version=version, locked=locked, offline=offline,
                              progress=progress)
    except NsmError as e:
        _fail(e)
    _report(out)


@cli.command()
@click.argument("package")
@click.option("--version", "version", help="Version constraint, e.g. '^1.2' (default: ^latest).")
@click.option("--offline", is_flag=True, help="Use only the git mirrors already in the cache.")
@verbose_option
def add(package: str, version: str | None, offline: bool, verbose: bool) -> None:
    """Add PACKAGE (user/pkg[@ref]) to this package's neve.toml, lock and install it."""
    from .errors import NsmError
    if version is not None:
        from .resolver.version import parse_constraint
        try:
            parse_constraint(version)
            if _context().manifest is None:
                raise NsmError("nsm add needs a package (a folder with neve.toml)",
                               "run it inside a package, or use nsm install outside one")
        except NsmError as e:
            _fail(e)
    elif _safe_context_is_global():
        _fail(NsmError("nsm add needs a package (a folder with neve.toml)",
                       "run it inside a package, or use nsm install outside one"))
    _install((package,), version, False, offline, False, verbose)


def _safe_context_is_global() -> bool:
    from pathlib import Path
    from .project import package_root
    return package_root(Path.cwd()) is None


@cli.command()
@click.argument("names", nargs=-1)
@click.option("--offline", is_flag=True, help="Use only the git mirrors already in the cache.")
@click.option("--global", "global_", is_flag=True, help="Update $NEVE_HOME/neve.lock.")
@verbose_option
def update(names: tuple[str, ...], offline: bool, global_: bool, verbose: bool) -> None:
    """Re-resolve within the constraints (only NAMES when given) and rewrite the lock."""
    from .errors import NsmError
    from .install import ops
    from .progress import Progress
    try:
        ctx = _context(global_)
        with Progress(verbose) as progress:
            out = ops.update(ctx, list(names), offline=offline, progress=progress)
    except NsmError as e:
        _fail(e)
    _report(out)
    if not out.installed:
        click.echo("lock up to date")


@cli.command()
@click.argument("package")
@click.option("--global", "global_", is_flag=True, help="Use $NEVE_HOME/neve.lock even in a package.")
def remove(package: str, global_: bool) -> None:
    """Remove PACKAGE ([user/]pkg, or pkg@version outside a package) and nothing else."""
    from .errors import NsmError
    from .install import ops
    from .registry.names import parse_spec
    try:
        spec = parse_spec(package, need_user=False)
        out = ops.remove(_context(global_), spec)
    except NsmError as e:
        _fail(e)
    _report(out)


@cli.command(name="list")
@click.option("--global", "global_", is_flag=True, help="List $NEVE_HOME's packages.")
def list_(global_: bool) -> None:
    """Installed packages: name, version, commit, source."""
    from .errors import NsmError
    from .install.show import list_rows
    try:
        rows = list_rows(_context(global_))
    except NsmError as e:
        _fail(e)
    if not rows:
        click.echo("no packages installed")
    for name, version, commit, source, state in rows:
        click.echo(f"{name:<20} {version:<12} {commit}  {source}  {state}".rstrip())


@cli.command()
@click.option("--global", "global_", is_flag=True, help="Show $NEVE_HOME/neve.lock's tree.")
def tree(global_: bool) -> None:
    """The dependency tree, as locked."""
    from .errors import NsmError
    from .install.show import tree_lines
    try:
        lines = tree_lines(_context(global_))
    except NsmError as e:
        _fail(e)
    click.echo("\n".join(lines))


# ---- bindgen: proto declarations from C/C++ headers (nsm.build.bindgen; LANGUAGE.md 11.2)

@cli.command()
@click.argument("header", type=click.Path(dir_okay=False))
@click.option("-o", "--output", "out", type=click.Path(dir_okay=False),
              help="Write the bindings to OUT (atomically) instead of stdout.")
@click.option("-I", "include_dirs", multiple=True, metavar="DIR", help="Add an include folder.")
@click.option("-D", "defines", multiple=True, metavar="NAME[=VAL]", help="Define a macro.")
@click.option("-U", "undefines", multiple=True, metavar="NAME", help="Undefine a macro.")
@click.option("--std", "std", metavar="STD", help="Language standard (as -std=STD).")
def bindgen(header: str, out: str | None, include_dirs: tuple[str, ...],
            defines: tuple[str, ...], undefines: tuple[str, ...], std: str | None) -> None:
    """Print Neve `proto` declarations and constants for the C functions of HEADER.

    HEADER is a path or `<name.h>`, a system header found in the include path. A .h header
    is read as C; any other as C++, where only extern "C" functions bind. Declarations that
    cannot be bound are reported as warnings on stderr."""
    from pathlib import Path
    from .build.bindgen import cached_generate
    from .files import write_atomic
    from .errors import NsmError
    try:
        cflags = [f"-U{u}" for u in undefines] + ([f"-std={std}"] if std else [])
        b = cached_generate(header, include_dirs=include_dirs, defines=defines,
                            cflags=tuple(cflags))
        if out is not None:
            try:
                write_atomic(Path(out), b.text)
            except OSError as e:
                raise NsmError(f"cannot write {out}: {e.strerror or e}") from None
    except NsmError as e:
        _fail(e)
    for problem in b.problems:
        click.echo(f"warning: {problem}", err=True)
    if out is None:
        sys.stdout.write(b.text)


# ---- doctor: what this machine offers (nsm.doctor; LANGUAGE.md 12.4)

@cli.command()
def doctor() -> None:
    """Report g++, ninja, the runtime build, ptxas, libdevice and the GPUs (always exits 0)."""
    from .doctor import report
    for c in report():
        click.echo(f"{'ok' if c.ok else '--':>2}  {c.name:<10} {c.detail}")


# ---- bench: reproducible benchmarks, Frost side by side with PyTorch (nsm.bench)

def _bench_options(model: str, steps: int):
    """The options shared by `nsm bench resnet18` and `nsm bench resnet20`."""
    def deco(f):
        opts = [
            click.option("--steps", type=int, default=steps, show_default=True,
                         help="Measured training steps (after warm-up)."),
            click.option("--warmup", type=int, default=3, show_default=True,
                         help="Warm-up steps, run but not measured."),
            click.option("--batch-size", "batch", type=int, default=32, show_default=True),
            click.option("--threads", type=int, default=os.cpu_count() or 1, show_default=True,
                         help="Threads of each system (OpenMP, torch.set_num_threads)."),
            click.option("--device", type=click.Choice(["cpu", "cuda"]), default="cpu",
                         show_default=True,
                         help="Where both systems train (cuda: a runtime error without a GPU)."),
            click.option("--compare", multiple=True, type=click.Choice(["torch"]),
                         help="Also run this system on the same weights and batches."),
            click.option("--seed", type=int, default=0, show_default=True,
                         help="Fixes initial weights, data order and augmentation."),
            click.option("--data", "data_dir", type=click.Path(file_okay=False),
                         help="CIFAR-10 binary folder (cifar-10-batches-bin); default: a seeded "
                              "synthetic CIFAR-shaped stream."),
            click.option("--epochs", type=int, default=0,
                         help="Train whole epochs instead of --steps; accuracy after each."),
            click.option("--out", default=f"bench-out/{model}", show_default=True,
                         help="Folder for report.json, plot.png, logs and data."),
            click.option("--preset", type=click.Choice(["original"]),
                         help="original: the original benchmark's settings (resnet20)."),
            click.option("--workers", type=int, default=1, show_default=True,
                         help="Frost DataLoader worker threads."),
            click.option("--crop-pad", type=int, default=4, show_default=True,
                         help="Random crop padding (0: no crop)."),
            click.option("--flip/--no-flip", default=True, help="Random horizontal flip."),
            click.option("--normalize/--no-normalize", default=True,
                         help="Per-channel CIFAR-10 mean/std normalisation."),
            click.option("--optimizer", type=click.Choice(["sgd", "adamw"]), default="sgd",
                         show_default=True),
            click.option("--lr", type=float, default=0.01, show_default=True,
                         help="SGD learning rate (batch 32: 0.05 diverges within 5 steps)."),
            click.option("--weight-decay", type=float, default=5e-4, show_default=True),
            click.option("--eval/--no-eval", "evaluate", default=False,
                         help="Test accuracy (BN running statistics) at the end."),
            click.option("--channels-last", is_flag=True,
                         help="PyTorch side in channels_last memory format."),
            click.option("--nproc", type=click.IntRange(min=1), default=1, show_default=True,
                         metavar="N", help="Also train Frost as N data-parallel ranks (mpirun, "
                         "dist.DataParallel): global images/s and scaling efficiency; --threads "
                         "is per rank (default: cores / N)."),
            click.option("--omp-wait-policy", type=click.Choice(["passive", "active", "default"]),
                         default="passive", show_default=True,
                         help="OMP_WAIT_POLICY of both systems (default: leave it unset)."),
            click.option("--profile/--no-profile", default=True,
                         help="Frost's per-op profile (FROST_PROFILE) of the measured steps "
                              "in the report."),
        ]
        for o in reversed(opts):
            f = o(f)
        return f
    return deco


@cli.group(invoke_without_command=True)
@click.option("--list", "list_", is_flag=True, help="List the benchmarks.")
@click.pass_context
def bench(ctx: click.Context, list_: bool) -> None:
    """Reproducible benchmarks: Frost side by side with PyTorch (report, table, plot)."""
    if list_ or ctx.invoked_subcommand is None:
        from .bench import BENCHMARKS
        for name, what in BENCHMARKS.items():
            click.echo(f"{name:<10} {what}")


def _run_bench(o, kw: dict, run, print_table) -> None:
    """Set the options `kw` on the benchmark's Options `o`, run it and print its table; a
    failure is nsm's located error and exit status 1."""
    from pathlib import Path
    from .errors import NsmError
    for k, v in kw.items():
        setattr(o, k, tuple(v) if k == "compare" else v)
    try:
        rep = run(o, echo=lambda m: click.echo(m, err=True))
    except NsmError as e:
        _fail(e)
    print_table(rep, Path(o.out).resolve())


def _threads_per_rank(kw: dict, given) -> None:
    """With --nproc N and no --threads, each rank gets cores / N threads."""
    if kw.get("nproc", 1) > 1 and "threads" not in given:
        kw["threads"] = max(1, (os.cpu_count() or 1) // kw["nproc"])


def _bench_resnet(model: str, **kw) -> None:
    from .bench.resnet import Options, original_preset, run
    from .bench.report import print_table
    o = Options(model=model, argv=sys.argv[1:])
    preset = kw.pop("preset")
    given = {k: v for k, v in kw.items()
             if click.get_current_context().get_parameter_source(k).name != "DEFAULT"}
    _threads_per_rank(kw, given)
    if "epochs" in given and kw["epochs"] < 1:      # 0 is the default's "train --steps"
        from .errors import NsmError
        _fail(NsmError(f"--epochs must be at least 1, got {kw['epochs']}",
                       "leave --epochs out to train --steps steps"))
    if preset == "original":
        original_preset(o)
        o.preset = preset
        for k, v in kw.items():
            if k not in given and k in ("steps", "batch", "lr", "weight_decay", "optimizer",
                                        "crop_pad", "flip", "evaluate"):
                kw[k] = getattr(o, k)
    _run_bench(o, kw, run, print_table)


@bench.command()
@_bench_options("resnet18", 20)
def resnet18(**kw) -> None:
    """ResNet-18 (CIFAR variant, 11.2 M parameters) training throughput."""
    _bench_resnet("resnet18", **kw)


@bench.command()
@_bench_options("resnet20", 20)
def resnet20(**kw) -> None:
    """The original benchmark's network (CIFAR ResNet-20, 272 k parameters)."""
    _bench_resnet("resnet20", **kw)


@bench.command()
@click.option("--compare", multiple=True, type=click.Choice(["torch"]),
              help="Also train the same model in PyTorch from Frost's initial weights.")
@click.option("--steps", type=int, default=200, show_default=True,
              help="Measured steps (2000: nanoGPT's full CPU run).")
@click.option("--warmup", type=int, default=3, show_default=True, help="Unmeasured first steps.")
@click.option("--batch-size", "batch", type=int, default=12, show_default=True)
@click.option("--block-size", type=int, default=64, show_default=True, help="Context length.")
@click.option("--n-layer", type=int, default=4, show_default=True)
@click.option("--n-head", type=int, default=4, show_default=True)
@click.option("--n-embd", type=int, default=128, show_default=True)
@click.option("--lr", type=float, default=1e-3, show_default=True, help="Peak learning rate.")
@click.option("--eval-interval", type=int, default=250, show_default=True,
              help="Steps between validation estimates (and one at the end).")
@click.option("--eval-iters", type=int, default=20, show_default=True,
              help="Batches per validation estimate.")
@click.option("--threads", type=int, default=2, show_default=True)
@click.option("--seed", type=int, default=1337, show_default=True)
@click.option("--out", default="bench-out/gpt", show_default=True)
@click.option("--nproc", type=click.IntRange(min=1), default=1, show_default=True, metavar="N",
              help="Also train Frost as N data-parallel ranks (mpirun, dist.DataParallel): global "
                   "tokens/s and scaling efficiency; --threads is per rank (default: 2 / N).")
def gpt(**kw) -> None:
    """Character-level GPT on Tiny Shakespeare (nanoGPT's CPU configuration)."""
    from .bench.gpt import Options, print_table, run
    o = Options(argv=sys.argv[1:])
    if kw["nproc"] > 1 and click.get_current_context().get_parameter_source("threads").name == "DEFAULT":
        kw["threads"] = max(1, kw["threads"] // kw["nproc"])
    _run_bench(o, kw, run, print_table)


@bench.command()
@click.option("--compare", multiple=True, type=click.Choice(["torch"]))
@click.option("--epochs", type=int, default=10, show_default=True)
@click.option("--threads", type=int, default=os.cpu_count() or 1, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--models", default="mlp,cnn", show_default=True, help="mlp, cnn or both.")
@click.option("--out", default="bench-out/mnist", show_default=True)
@click.option("--runs", type=int, default=1, show_default=True,
              help="Frost runs per model (2 or more: the CNN's peak-RSS spread goal).")
def mnist(compare, epochs, threads, seed, models, out, runs) -> None:
    """Issue 8's MNIST MLP and CNN (packages/frost/examples) with test accuracy."""
    from .bench.mnist import run_mnist
    from .errors import NsmError
    try:
        run_mnist(tuple(compare), epochs, threads, seed, models.split(","), out, runs=runs)
    except NsmError as e:
        _fail(e)


from .cli_build import build, clean, test  # noqa: E402 - registered below

for _cmd in (build, test, clean):
    cli.add_command(_cmd)


def main() -> None:
    cli(prog_name="nsm")


def neve_main() -> None:
    """`neve FILE [ARGS]...` is `nsm run FILE [ARGS]...`."""
    argv = sys.argv[1:]
    if not argv or argv[0] in ("-h", "--help"):
        click.echo("Usage: neve [--release] FILE [ARGS]...\n\n  Compile and run a Neve program "
                   "(same as `nsm run`).")
        sys.exit(0 if argv else 2)
    run.main(args=argv, prog_name="neve")


if __name__ == "__main__":
    main()
