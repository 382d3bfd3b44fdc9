"""`nsm build`, `nsm test`, `nsm clean` and the package mode of `nsm run`: command lines over
nsm.build.orchestrate."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from .buildcmd import build_or_exit, package_root_or_exit as _package_root, print_executables


@click.command()
@click.option("--release", is_flag=True, help="Optimise fully and remove index bounds checks.")
@click.option("--tests", is_flag=True, help="Also build tests/*.nv.")
@click.option("-v", "--verbose", is_flag=True, help="Print the command line of every build step.")
@click.option("--emit", type=click.Choice(["ptx"]),
              help="Also list the files of a stage: ptx, the checked PTX of each module with kernels.")
def build(release: bool, tests: bool, verbose: bool, emit: str | None) -> None:
    """Build the package in the current folder and its dependencies.

    Outputs go to build/debug/ (or build/release/): executables in bin/, objects and module
    interfaces in obj/ and nvi/, PTX of modules with kernels in ptx/. Only what changed is
    rebuilt."""
    root = _package_root()
    res = build_or_exit(root, release, tests, verbose)
    print_executables(res)
    if emit == "ptx":
        from .build.plugins.kernel import listed
        from .paths import package_build_dir
        ptx = listed(package_build_dir(root.resolve(), release))
        for p in ptx:
            click.echo(str(p))
        if not ptx:
            click.echo("no module of this package defines a kernel", err=True)


@click.command()
@click.option("--release", is_flag=True, help="Build and run the tests optimised.")
@click.option("-v", "--verbose", is_flag=True, help="Print the command line of every build step.")
@click.argument("names", nargs=-1)
def test(release: bool, verbose: bool, names: tuple[str, ...]) -> None:
    """Build and run the package's tests (tests/*.nv, or those named NAMES).

    Each test runs from the package root and is checked against its directive comments:
    `# expect: TEXT` per output line in order, `# stdin:`, `# args:`, `# exit: N`,
    `# runtime-error@COL: MESSAGE`, `# stderr-line:` and the rest of docs/testing.md."""
    from .errors import NsmError
    from .testing import load_tests, package_tests, run_tests
    root = _package_root()
    files = package_tests(root)
    unknown = [n for n in names if n not in files]
    if unknown:
        sys.stderr.write(f"error: no test named '{unknown[0]}' in {root / 'tests'}\n")
        sys.exit(1)
    try:
        programs = load_tests(root, files)      # before building: all of tests/ is built
    except NsmError as e:
        sys.stderr.write(e.render())
        sys.exit(1)
    res = build_or_exit(root, release, True, verbose)
    tests = {k[5:]: v for k, v in res.executables.items() if k.startswith("test:")}
    chosen = {n: tests[n] for n in (names or sorted(tests))}
    if not chosen:
        click.echo("no tests (add tests/*.nv)")
        return
    failed = run_tests(root, chosen, programs)
    sys.exit(1 if failed else 0)


@click.command()
def clean() -> None:
    """Remove the package's build/ folder (both profiles and the native part)."""
    import shutil
    root = _package_root()
    target = root / "build"
    if target.is_dir():
        shutil.rmtree(target)
        click.echo(f"removed {target}")
    else:
        click.echo("nothing to clean")


def run_package(bin_name: str | None, args: tuple[str, ...], release: bool,
                verbose: bool = False) -> None:
    """Build the package and exec its executable `bin_name` (the only one when None)."""
    root = _package_root()
    res = build_or_exit(root, release, False, verbose, quiet=True)
    bins = {k[4:]: v for k, v in res.executables.items() if k.startswith("bin:")}
    if not bins:
        sys.stderr.write(f"error: package {root.name} has no executable\n"
                         "hint: add src/main.nv with a main block, or a [[bin]] in neve.toml\n")
        sys.exit(1)
    if bin_name is None and len(bins) > 1:
        sys.stderr.write(f"error: package {root.name} has several executables: "
                         f"{', '.join(sorted(bins))}\nhint: choose one with --bin NAME\n")
        sys.exit(1)
    name = bin_name or next(iter(bins))
    if name not in bins:
        sys.stderr.write(f"error: no executable named '{name}' (have {', '.join(sorted(bins))})\n")
        sys.exit(1)
    sys.stdout.flush()
    # OpenMP workers (oneDNN, Frost's native loops) spinning between parallel regions take
    # the cores from Neve's kernel threads: 4-8x slower Frost steps measured (packages/frost/README.md, "Threads")
    os.environ.setdefault("OMP_WAIT_POLICY", "passive")
    os.execv(str(bins[name]), [str(bins[name]), *args])
