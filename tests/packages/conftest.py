"""Fixtures: a fresh NEVE_HOME and an offline registry of bare repos per test."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from .gitrepos import Registry

BIN = Path(sys.executable).parent


@pytest.fixture
def reg(tmp_path, monkeypatch) -> Registry:
    """An empty registry at NSM_GIT_BASE, and a NEVE_HOME of this test's own."""
    home = tmp_path / "home"
    monkeypatch.setenv("NEVE_HOME", str(home))
    monkeypatch.setenv("NSM_GIT_BASE", str(tmp_path / "remote"))
    monkeypatch.delenv("NSM_GIT_TEMPLATE", raising=False)
    (tmp_path / "remote").mkdir()
    return Registry(tmp_path / "remote")


def nsm(*args: str, cwd: Path, env: dict | None = None, timeout: int = 120):
    """Run the nsm console script with the test's environment."""
    return subprocess.run([str(BIN / "nsm"), *args], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=timeout)
