"""The one exception type for bad input and refused operations: a message the user reads."""
from __future__ import annotations


class NsmError(Exception):
    """An error for the user: `message` (may span lines), an optional `hint`, exit status 1."""

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def render(self) -> str:
        """The text printed on stderr: `error: ...` and `hint: ...` lines."""
        out = f"error: {self.message}\n"
        if self.hint:
            out += f"hint: {self.hint}\n"
        return out
