"""The `nsm` and `neve` command lines: parse arguments, call the layers below, print.

Imports of the compiler and build layers are lazy so `nsm --help` and a cached `nsm run`
start fast.
"""
from __future__ import annotations

import os
import sys

import click

EMIT_STAGES = ("tokens", "ast", "typed", "ir", "llvm", "asm", "obj")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="neve", prog_name="nsm")
def cli() -> None:
    """nsm: the Neve package manager and build orchestrator."""


def _run(file: str, args: tuple[str, ...], release: bool, emit: str | None, timings: bool) -> None:
    if emit is not None:
        _emit(file, emit, release)
        return
    from .build.program import BuildError, build_program
    try:
        built = build_program(file, release=release)
    except BuildError as e:
        sys.stderr.write(e.message)
        sys.exit(e.exit_code)
    except Exception as e:  # noqa: BLE001 - runtime build failures and the like
        sys.stderr.write(f"error: {e}\n")
        sys.exit(1)
    if timings and built.timings:
        for stage, t in built.timings.items():
            sys.stderr.write(f"{stage:>10}: {t * 1000:8.1f} ms\n")
    sys.stdout.flush()
    exe = str(built.exe)
    try:
        os.execv(exe, [exe, *args])
    except OSError as e:
        sys.stderr.write(f"error: cannot run {exe}: {e.strerror}\n")
        sys.exit(1)


def _emit(file: str, stage: str, release: bool) -> None:
    from compiler.driver import compile_file
    res = compile_file(file, release=release, emit=None if stage == "obj" else stage)
    if not res.ok:
        res.diags.print()
        sys.exit(res.exit_code or 1)
    if stage == "obj":
        for unit in res.units:          # one object per module
            out = unit.key + ".o"
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
@click.argument("file", type=click.Path(dir_okay=False))
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def run(file: str, args: tuple[str, ...], release: bool, emit: str | None, timings: bool) -> None:
    """Compile FILE (cached by content) and run it with ARGS.

    Standard input, output and the exit status are the program's own."""
    _run(file, args, release, emit, timings)


@cli.command()
@click.argument("file", type=click.Path(dir_okay=False))
def check(file: str) -> None:
    """Type-check FILE without generating code."""
    from compiler.driver import compile_file
    res = compile_file(file, check_only=True)
    if not res.ok:
        res.diags.print()
        sys.exit(res.exit_code or 1)


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
