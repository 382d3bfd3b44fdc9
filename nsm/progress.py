"""Progress of long operations on stderr (rich): a spinner with the current step on a
terminal, nothing when not a terminal, every step and detail with verbose."""
from __future__ import annotations

import sys


class Progress:
    """Reports steps (`step`), details (`detail`, verbose only) and notes (`note`, always)."""

    def __init__(self, verbose: bool = False) -> None:
        from rich.console import Console
        self.console = Console(stderr=True, highlight=False)
        self.verbose = verbose
        self.tty = self.console.is_terminal and not verbose
        self._status = None

    def __enter__(self) -> "Progress":
        if self.tty:
            self._status = self.console.status("working")
            self._status.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        if self._status is not None:
            self._status.__exit__(*exc)
            self._status = None

    def step(self, msg: str) -> None:
        """A step of the operation (`fetching csv`)."""
        if self._status is not None:
            self._status.update(msg)
        elif self.verbose:
            sys.stderr.write(msg + "\n")

    def detail(self, msg: str) -> None:
        """Fine detail (each file written), shown only with -v."""
        if self.verbose:
            sys.stderr.write(msg + "\n")

    def note(self, msg: str) -> None:
        """Something the user should see whatever the verbosity (a warning)."""
        if self._status is not None:
            self.console.print(msg, markup=False)
        else:
            sys.stderr.write(msg + "\n")
