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
    """Compiled scripts (objects, interfaces, executables) keyed by content."""
    return cache_dir() / "programs"


def lib_dir() -> Path:
    return neve_home() / "lib"


def toolchain_root() -> Path:
    """The folder holding runtime_cpp/ and packages/ (the repository or the installed tree)."""
    return Path(__file__).resolve().parent.parent


def runtime_src_dir() -> Path:
    return toolchain_root() / "runtime_cpp"


def bundled_packages_dir() -> Path:
    return toolchain_root() / "packages"
