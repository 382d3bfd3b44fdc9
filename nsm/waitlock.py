"""OS file locks that say what they wait for: after a moment, `waiting for <what> held by
pid N` on stderr; after NSM_LOCK_TIMEOUT seconds (default 300) an error instead of waiting
forever on a hung holder. The OS releases a lock when its holder dies."""
from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock, Timeout

from .errors import NsmError

DEFAULT_TIMEOUT = 300.0
_QUIET_WAIT = 0.5                   # seconds waited before saying so


def timeout() -> float:
    """The limit from NSM_LOCK_TIMEOUT (seconds), else DEFAULT_TIMEOUT."""
    text = os.environ.get("NSM_LOCK_TIMEOUT", "").strip()
    if not text:
        return DEFAULT_TIMEOUT
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value >= 0:
        raise NsmError(f"NSM_LOCK_TIMEOUT must be a number of seconds, not '{text}'")
    return value


def _holder(pidfile: Path) -> str:
    try:
        return f"pid {int(pidfile.read_text().strip())}"
    except (OSError, ValueError):
        return "another process"


@contextmanager
def held(path: Path, what: str):
    """Hold the OS lock at `path` (a file lock on `what`, named in messages)."""
    limit = timeout()
    path.parent.mkdir(parents=True, exist_ok=True)
    lock = FileLock(str(path))
    pidfile = path.with_name(path.name + ".pid")
    try:
        lock.acquire(timeout=min(_QUIET_WAIT, limit))
    except Timeout:
        if limit <= _QUIET_WAIT:
            raise NsmError(f"gave up waiting for {what} held by {_holder(pidfile)} after "
                           f"{limit:g} s", _HINT) from None
        sys.stderr.write(f"waiting for {what} held by {_holder(pidfile)}\n")
        sys.stderr.flush()
        try:
            lock.acquire(timeout=limit - _QUIET_WAIT)
        except Timeout:
            raise NsmError(f"gave up waiting for {what} held by {_holder(pidfile)} after "
                           f"{limit:g} s", _HINT) from None
    try:
        pidfile.write_text(f"{os.getpid()}\n")
        yield
    finally:
        lock.release()


_HINT = ("if that process is hung, stop it; NSM_LOCK_TIMEOUT sets how many seconds nsm waits "
         "(default 300)")
