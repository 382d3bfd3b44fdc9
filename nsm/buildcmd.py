"""The body of `nsm build`, free of click so the no-op build (the hot path: an editor or a
script runs it after every save) starts as fast as Python can: `nsm.entry` calls it directly
for the plain forms of `nsm build`."""
from __future__ import annotations

import sys
from pathlib import Path

BUILD_FLAGS = {"--release", "--tests", "-v", "--verbose"}


def package_root_or_exit() -> Path:
    """The nearest folder at or above the working directory with a neve.toml; exits 1
    with a hint when there is none."""
    from .errors import NsmError
    from .project import package_root
    root = package_root(Path.cwd())
    if root is None:
        sys.stderr.write(NsmError("not inside a package (no neve.toml here or above)",
                                  "create one with nsm new NAME, or run a file: nsm run FILE")
                         .render())
        sys.exit(1)
    return root


def build_or_exit(root: Path, release: bool, tests: bool, verbose: bool, quiet: bool = False):
    """Build the package (at a workspace's root: every member, then the root package if it is
    one); print the compilers' messages; exit non-zero on failure."""
    from .build.orchestrate import BuildResult, build_package
    from .errors import NsmError
    from . import project
    try:
        m = project.manifest(root)
        members = project.workspace_members(root) if m.members else [root]
    except NsmError as e:
        sys.stderr.write(e.render() + "error: build failed\n")
        sys.exit(1)
    if m.members:
        res = BuildResult(True)
        for d in members:
            one = build_or_exit(d, release, tests, verbose, quiet) if d != root else None
            if one is not None:
                res.executables.update(one.executables)
        if m.virtual:
            return res
    ws_exes = res.executables if m.members else {}
    res = build_package(root, release=release, tests=tests, verbose=verbose)
    res.executables.update({k: v for k, v in ws_exes.items() if k not in res.executables})
    if res.output:
        sys.stderr.write(res.output)
    if not res.ok:
        sys.stderr.write("error: build failed\n")
        sys.exit(res.exit_code or 1)
    if not quiet:
        what = "nothing to do" if not res.ran else f"{len(res.ran)} step(s)"
        profile = "release" if release else "debug"
        sys.stderr.write(f"Finished {profile} build of {package_name(root)} ({what}) in "
                         f"{res.seconds:.2f} s\n")
    return res


def package_name(root: Path) -> str:
    """The [package] name (the build has validated the manifest), else the folder's name."""
    from .errors import NsmError
    from .project import manifest
    try:
        return manifest(root).name
    except NsmError:
        return root.name


def print_executables(res) -> None:
    """One `  name: path` line per built executable, on stderr."""
    for name, path in sorted(res.executables.items()):
        if name.startswith("bin:"):
            sys.stderr.write(f"  {name[4:]}: {path}\n")


def fast_build(flags: list[str]) -> None:
    """`nsm build` with only the flags of BUILD_FLAGS (already checked by the caller)."""
    print_executables(build_or_exit(package_root_or_exit(), "--release" in flags,
                                    "--tests" in flags, "-v" in flags or "--verbose" in flags))
