"""Build of the C++ runtime library (runtime_cpp/) that every Neve program links.

The library is content-addressed: its key hashes every runtime source and header (relative
path and bytes), the output of ``g++ --version`` and the compile flags, and the build lives in
``$NEVE_HOME/cache/runtime/<key>/`` (``libneve_rt.a`` plus a copy of ``include/``). Once built,
``ensure_runtime`` is a hash of the sources and a stat: ninja does not run at all.

Concurrent first runs (two ``nsm run`` at once) are serialized by a file lock next to the key's
folder; the build happens in a temporary folder that is renamed into place, so a reader never
sees a half-written library and an interrupted build leaves nothing behind but a temp folder
that the next build removes.
"""
from __future__ import annotations

import hashlib
import os
import shlex
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from filelock import FileLock

from nsm import paths

CXX = "g++"
CXX_FLAGS = ["-std=c++17", "-O2", "-fPIC", "-DGC_THREADS", "-Wall"]
# libstdc++: the runtime uses std::to_chars and std::stable_sort, and programs may be linked
# by a C driver.
LINK_ARGS = ["-lgc", "-lpthread", "-lm", "-lstdc++"]
LIB_NAME = "libneve_rt.a"
SOURCE_SUFFIXES = {".cpp", ".cc", ".h", ".hpp", ".inc"}
COMPILED_SUFFIXES = {".cpp", ".cc"}


class RuntimeBuildError(RuntimeError):
    """The runtime library could not be built; the message holds the compiler's output."""


@dataclass(frozen=True)
class RuntimeBuild:
    """A built runtime: link ``lib`` followed by ``link_args``; compile against ``include``."""

    lib: Path
    include: Path
    link_args: list[str] = field(default_factory=lambda: list(LINK_ARGS))
    key: str = ""
    built: bool = False          # True when this call compiled the library


def _source_files(src: Path) -> list[Path]:
    files = [p for p in src.rglob("*") if p.suffix in SOURCE_SUFFIXES and p.is_file()]
    return sorted(files, key=lambda p: p.relative_to(src).as_posix())


def _compiler_version() -> bytes:
    try:
        out = subprocess.run([CXX, "--version"], capture_output=True, check=True)
    except FileNotFoundError as e:
        raise RuntimeBuildError(f"cannot build the Neve runtime: {CXX} not found on PATH") from e
    except subprocess.CalledProcessError as e:
        raise RuntimeBuildError(f"`{CXX} --version` failed:\n{e.stderr.decode(errors='replace')}") from e
    return out.stdout


def runtime_key(src: Path | None = None) -> str:
    """Content key of the runtime: sources, headers, compiler version, flags (sha256, hex)."""
    src = src or paths.runtime_src_dir()
    h = hashlib.sha256()
    for p in _source_files(src):
        rel = p.relative_to(src).as_posix().encode()
        data = p.read_bytes()
        h.update(b"%d:%s%d:" % (len(rel), rel, len(data)))
        h.update(data)
    h.update(_compiler_version())
    h.update(" ".join([CXX] + CXX_FLAGS + LINK_ARGS).encode())
    return h.hexdigest()[:32]


def _ninja_bin() -> str:
    found = paths.ninja_binary()
    if not found:
        raise RuntimeBuildError("cannot build the Neve runtime: ninja not found (pip install ninja)")
    return found


def _write_ninja(build_dir: Path, src: Path, sources: list[Path]) -> None:
    from ninja import ninja_syntax

    flags = CXX_FLAGS + ["-I" + str(src / "include"), "-iquote", str(src)]
    with open(build_dir / "build.ninja", "w") as f:
        w = ninja_syntax.Writer(f, width=100)
        w.variable("cxx", CXX)
        w.variable("cxxflags", ninja_syntax.escape(" ".join(shlex.quote(x) for x in flags)))
        w.rule("cxx", "$cxx -MMD -MF $out.d $cxxflags -c $in -o $out",
               depfile="$out.d", deps="gcc", description="CXX $in")
        w.rule("ar", "rm -f $out && ar crs $out $in", description="AR $out")
        objs = []
        for s in sources:
            rel = s.relative_to(src).with_suffix(".o").as_posix()
            obj = f"obj/{rel}"
            w.build(obj, "cxx", str(s))
            objs.append(obj)
        w.build(LIB_NAME, "ar", objs)
        w.default(LIB_NAME)


def _build(key: str, src: Path, final: Path, verbose: bool) -> None:
    root = final.parent
    for stale in root.glob(f".tmp-{key}-*"):   # left by an interrupted build; we hold the lock
        shutil.rmtree(stale, ignore_errors=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".tmp-{key}-", dir=root))
    try:
        sources = [p for p in _source_files(src) if p.suffix in COMPILED_SUFFIXES]
        _write_ninja(tmp, src, sources)
        if verbose:
            print(f"building the Neve runtime ({len(sources)} files) in {final}")
        from ..progress import BuildSteps, NinjaRun
        run = NinjaRun([_ninja_bin(), "-C", str(tmp)] + (["-v"] if verbose else []),
                       dict(os.environ), BuildSteps(verbose))
        output = "".join(line for step, line in run if line is not None)
        if verbose and output:
            print(output, end="")
        if run.returncode != 0:
            raise RuntimeBuildError("building the Neve runtime failed:\n" + output.strip())
        shutil.copytree(src / "include", tmp / "include")
        if final.exists():           # a folder without a library: not ours to trust
            shutil.rmtree(final)
        os.rename(tmp, final)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def ensure_runtime(verbose: bool = False) -> RuntimeBuild:
    """Build the runtime library unless the build for the current sources exists; return it.

    Raises RuntimeBuildError with the compiler's output when a source does not compile (or
    when g++ or ninja is missing).
    """
    src = paths.runtime_src_dir()
    key = runtime_key(src)
    root = paths.runtime_cache_dir()
    final = root / key

    def result(built: bool) -> RuntimeBuild:
        return RuntimeBuild(lib=final / LIB_NAME, include=final / "include",
                            link_args=list(LINK_ARGS), key=key, built=built)

    if (final / LIB_NAME).is_file():
        return result(False)
    root.mkdir(parents=True, exist_ok=True)
    with FileLock(str(root / f"{key}.lock")):
        if (final / LIB_NAME).is_file():    # another process built it while we waited
            return result(False)
        _build(key, src, final, verbose)
    return result(True)
