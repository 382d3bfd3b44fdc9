"""A package on disk to build with `nsm build`, and what each build ran."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

BIN = Path(sys.executable).parent
STEP = re.compile(r"\[\d+/\d+\] ((?:NEVE|LINK|CXX|CC|BINDGEN) .*)$")


@dataclass
class Built:
    rc: int
    ran: list[str]          # ninja edge descriptions, e.g. "NEVE app_util", "LINK .../bin/app"
    stderr: str
    stdout: str

    @property
    def compiled(self) -> list[str]:
        return sorted(r.split()[1] for r in self.ran if r.startswith("NEVE "))

    @property
    def linked(self) -> bool:
        return any(r.startswith("LINK ") and "/bin/" in r for r in self.ran)

    @property
    def cxx(self) -> list[str]:
        return sorted(Path(r.split()[1]).name for r in self.ran if r.startswith(("CXX ", "CC ")))


def nsm(*args: str, cwd: Path, timeout: int = 600) -> subprocess.CompletedProcess:
    return subprocess.run([str(BIN / "nsm"), *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout)


class Package:
    def __init__(self, root: Path, name: str = "app", files: dict[str, str] | None = None,
                 manifest_extra: str = "") -> None:
        self.root = root
        self.name = name
        root.mkdir(parents=True, exist_ok=True)
        (root / "neve.toml").write_text(f'[package]\nname = "{name}"\nversion = "0.1.0"\n'
                                        f'src = "src"\n{manifest_extra}')
        for rel, text in (files or {}).items():
            self.write(rel, text)

    def write(self, rel: str, text: str, mtime_ns: int | None = None) -> Path:
        p = self.root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
        if mtime_ns is not None:
            os.utime(p, ns=(mtime_ns, mtime_ns))
        return p

    def build(self, *args: str) -> Built:
        """`nsm build ARGS`, its steps read from the `[i/n] STEP` lines (shown at once)."""
        env = {**os.environ, "NSM_PROGRESS_AFTER": "0", "NSM_QUIET": ""}
        p = subprocess.run([str(BIN / "nsm"), "build", *args], cwd=self.root, env=env,
                           capture_output=True, text=True, timeout=600)
        ran = [m.group(1) for m in map(STEP.match, p.stderr.splitlines())
               if m and "/runtime_cpp/" not in m.group(1)]      # not the runtime's own build
        return Built(p.returncode, ran, p.stderr, p.stdout)

    def run_exe(self, name: str | None = None, profile: str = "debug") -> str:
        exe = self.root / "build" / profile / "bin" / (name or self.name)
        p = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
        assert p.returncode == 0, p.stderr
        return p.stdout
