"""A second nsm waiting on a lock (issue 14 item 7): it says what it waits for and who holds
it, and gives up after NSM_LOCK_TIMEOUT seconds with a message."""
from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from nsm.errors import NsmError
from nsm.waitlock import held, timeout

from .conftest import nsm

HOLD = """
import sys, time
from pathlib import Path
from nsm.install.context import find
with find(Path(sys.argv[1])).guard():
    print("held", flush=True)
    time.sleep(60)
"""


def test_waiter_names_the_holder_and_times_out(reg, tmp_path):
    app = tmp_path / "app"
    app.mkdir()
    (app / "neve.toml").write_text('[package]\nname = "app"\nversion = "0.1.0"\n')
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(app)], stdout=subprocess.PIPE,
                              text=True, env=os.environ.copy())
    try:
        assert holder.stdout.readline() == "held\n"
        t = time.perf_counter()
        r = nsm("install", cwd=app, env={"NSM_LOCK_TIMEOUT": "1.5"})
        took = time.perf_counter() - t
    finally:
        holder.kill()
        holder.wait()
    assert r.returncode == 1 and 1.5 <= took < 20
    assert r.stderr == (f"waiting for {app / 'neve.lock'} held by pid {holder.pid}\n"
                        f"error: gave up waiting for {app / 'neve.lock'} held by pid "
                        f"{holder.pid} after 1.5 s\n"
                        "hint: if that process is hung, stop it; NSM_LOCK_TIMEOUT sets how many "
                        "seconds nsm waits (default 300)\n")
    assert nsm("install", cwd=app).returncode == 0        # the holder died: the OS freed it


def test_timeout_setting(monkeypatch, tmp_path):
    monkeypatch.delenv("NSM_LOCK_TIMEOUT", raising=False)
    assert timeout() == 300
    monkeypatch.setenv("NSM_LOCK_TIMEOUT", "nope")
    with pytest.raises(NsmError, match="NSM_LOCK_TIMEOUT must be a number of seconds, not 'nope'"):
        with held(tmp_path / "x.lock", "x"):
            pass
    monkeypatch.setenv("NSM_LOCK_TIMEOUT", "0")
    with held(tmp_path / "x.lock", "x"):              # free: taken at once
        assert (tmp_path / "x.lock.pid").read_text() == f"{os.getpid()}\n"
