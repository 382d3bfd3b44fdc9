"""Progress of long operations on stderr (rich): a spinner with the current step on a
terminal, nothing when not a terminal, every step and detail with verbose."""
from __future__ import annotations

import os
import sys
import time


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


_T0 = time.monotonic()          # about when the command started (nsm imports this early)
HOLD_S = 1.0                    # builds shorter than this print nothing ($NSM_PROGRESS_AFTER)


class BuildSteps:
    """The steps of a build on stderr, for builds that take over a second: a rich progress bar
    on a terminal (transient), one `[i/n] STEP` line per step otherwise; nothing at all with
    NSM_QUIET=1 or -v (which lists every step itself). Steps arrive from ninja's status lines."""

    def __init__(self, verbose: bool = False) -> None:
        self.off = verbose or os.environ.get("NSM_QUIET", "") not in ("", "0")
        self.tty = sys.stderr.isatty()
        try:
            self.hold = float(os.environ.get("NSM_PROGRESS_AFTER", HOLD_S))
        except ValueError:
            self.hold = HOLD_S
        self.held: list[str] = []
        self.bar = None
        self.task = None

    def step(self, done: int, total: int, what: str) -> None:
        if self.off:
            return
        line = f"[{done}/{total}] {what}"
        if time.monotonic() - _T0 < self.hold:
            self.held.append(line)
            return
        if self.tty:
            self._bar(done, total, what)
        else:
            for held in self.held:
                sys.stderr.write(held + "\n")
            self.held.clear()
            sys.stderr.write(line + "\n")
            sys.stderr.flush()

    def _bar(self, done: int, total: int, what: str) -> None:
        if self.bar is None:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
            self.bar = Progress(TextColumn("building"), BarColumn(), MofNCompleteColumn(),
                                TextColumn("{task.description}"), transient=True)
            self.bar.start()
            self.task = self.bar.add_task(what, total=total)
        self.bar.update(self.task, completed=done, total=total, description=what)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()
            self.bar = None


STATUS = "@@nsm "
NINJA_STATUS = STATUS + "%f/%t "


class NinjaRun:
    """ninja run as `cmd` (NINJA_STATUS set here), its steps reported to `steps`. Iterating
    yields (step description, None) for each step started and (None, line) for other output;
    `returncode` is set when the iteration ends."""

    def __init__(self, cmd: list[str], env: dict[str, str], steps: BuildSteps) -> None:
        self.cmd, self.env, self.steps = cmd, dict(env, NINJA_STATUS=NINJA_STATUS), steps
        self.returncode: int | None = None

    def __iter__(self):
        import subprocess
        p = subprocess.Popen(self.cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True, env=self.env)
        try:
            for line in p.stdout:
                if line.startswith(STATUS):
                    counts, _, what = line[len(STATUS):].rstrip("\n").partition(" ")
                    done, _, total = counts.partition("/")
                    if done.isdigit() and total.isdigit():
                        self.steps.step(int(done), int(total), what)
                    yield what, None
                else:
                    yield None, line
        finally:
            self.steps.close()
            p.stdout.close()
            self.returncode = p.wait()
