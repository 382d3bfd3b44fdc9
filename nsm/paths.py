"""Every path nsm and the compiler use; nothing else decides where files go.

NEVE_HOME (default ~/.local/neve) holds lib/<name>@<version>/ installed packages, neve.lock for
scripts outside a package, and cache/ (git mirrors, the runtime build, compiled programs).
"""
from __future__ import annotations

import os
from pathlib import Path


def neve_home() -> Path:
    """The toolchain's home folder: $NEVE_HOME, else ~/.local/neve."""
    env = os.environ.get("NEVE_HOME")
    return Path(env).expanduser().resolve() if env else Path.home() / ".local" / "neve"


def cache_dir() -> Path:
    return neve_home() / "cache"


def runtime_cache_dir() -> Path:
    """Built runtime libraries, one folder per content key."""
    return cache_dir() / "runtime"


def programs_cache_dir() -> Path:
    """Build folders of files outside every package (each an anonymous package)."""
    return cache_dir() / "programs"


def units_cache_dir() -> Path:
    """The content-addressed store of compiled units, shared by every build."""
    return cache_dir() / "units"


def package_build_dir(root: Path, release: bool) -> Path:
    """A package's build folder for one profile: <root>/build/debug|release/."""
    return Path(root) / "build" / ("release" if release else "debug")


def script_build_dir(real_file: Path, release: bool) -> Path:
    """The build folder of a file outside every package (`nsm run FILE`): an anonymous package
    named by a hash of the file's real path, as Go builds `go run x.go`."""
    import hashlib
    tag = hashlib.sha256(str(real_file).encode()).hexdigest()[:16]
    return programs_cache_dir() / f"{Path(real_file).stem}-{tag}" / ("release" if release else "debug")


def script_executable(bdir: Path, real_file: Path) -> Path:
    """Where a build folder puts the executable of a program run as a file (`nsm run FILE`)."""
    import hashlib
    tag = hashlib.sha256(str(real_file).encode()).hexdigest()[:8]
    return Path(bdir) / "run" / f"{Path(real_file).stem}-{tag}"


def build_file(bdir: Path, kind: str, key: str) -> Path:
    """A unit output inside a build folder: kind `obj` (<key>.o), `nvi` (<key>.nvi), `stamps`
    (<key>.stamp) or `ptx` (<key>.ptx)."""
    ext = {"obj": ".o", "nvi": ".nvi", "stamps": ".stamp", "ptx": ".ptx"}[kind]
    return Path(bdir) / kind / f"{key}{ext}"


def import_map_file(bdir: Path) -> Path:
    """The import map the build's compiles are fed (compiler/imports.py)."""
    return Path(bdir) / "imports.json"


def lib_dir() -> Path:
    return neve_home() / "lib"


def toolchain_root() -> Path:
    """The folder holding runtime_cpp/ and packages/ (the repository or the installed tree)."""
    return Path(__file__).resolve().parent.parent


def runtime_src_dir() -> Path:
    return toolchain_root() / "runtime_cpp"


def bundled_packages_dir() -> Path:
    return toolchain_root() / "packages"


def git_cache_dir() -> Path:
    """Bare git mirrors of package sources, one per URL."""
    return cache_dir() / "git"


def locks_dir() -> Path:
    """OS file locks (released by the OS when their process dies)."""
    return cache_dir() / "locks"


def staging_dir() -> Path:
    """Installs in progress; inside lib/ so the final rename stays on one filesystem."""
    return lib_dir() / ".staging"


def installed_package_dir(name: str, version: str) -> Path:
    """Where version `version` of package `name` is installed: lib/<name>@<version>/."""
    return lib_dir() / f"{name}@{version}"


def global_lock_file() -> Path:
    """The lock of packages installed outside any package (used by scripts)."""
    return neve_home() / "neve.lock"


def config_file() -> Path:
    """nsm's configuration: $NSM_CONFIG, else $NEVE_HOME/config.toml."""
    env = os.environ.get("NSM_CONFIG")
    return Path(env).expanduser() if env else neve_home() / "config.toml"


def ninja_binary() -> str | None:
    """The ninja executable: the `ninja` wheel's (installed beside this Python, so found with
    one stat and no import on nsm build's no-op path), else the one on PATH; None if neither."""
    import sys
    cand = Path(sys.executable).parent / "ninja"
    if cand.is_file():
        return str(cand)
    try:
        import ninja  # the wheel ships the binary; its scripts folder may differ
        cand = Path(ninja.BIN_DIR) / "ninja"
        if cand.is_file():
            return str(cand)
    except ImportError:
        pass
    import shutil
    return shutil.which("ninja")
