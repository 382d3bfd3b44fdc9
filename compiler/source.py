"""Reading a source file: UTF-8 text registered with the diagnostics, or a located error."""
from __future__ import annotations

from pathlib import Path

from .diagnostics import Diagnostics, Span


def read_source(path: str, diags: Diagnostics, data: bytes | None = None) -> str | None:
    """The text of a source file (or of `data`, its bytes already read), registered for
    diagnostics; None after reporting why it cannot be used."""
    if data is None:
        try:
            data = Path(path).read_bytes()
        except OSError as e:
            diags.error(None, f"cannot read {path}: {e.strerror or e}")
            return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[:e.start].count(b"\n") + 1
        col = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        diags.error(Span(path, line, col), "source is not valid UTF-8")
        return None
    diags.add_source(path, text)
    return text
