"""Writing files so that nothing is ever half-written: the one write_atomic, and its
write-if-changed form that keeps mtimes still when the bytes are the same (ninja `restat`)."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_atomic(path: Path, data: bytes | str) -> None:
    """Replace `path` with `data` (str is written as UTF-8) atomically: a unique temporary file
    beside it, then a rename; on failure the temporary file is removed and `path` is untouched.
    Raises OSError when the folder is not writable."""
    path = Path(path)
    raw = data.encode() if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(raw)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_if_changed(path: Path, data: bytes) -> bool:
    """write_atomic unless `path` already holds exactly `data` (creating its folder); True when
    written."""
    try:
        if path.stat().st_size == len(data) and path.read_bytes() == data:
            return False
    except OSError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, data)
    return True
