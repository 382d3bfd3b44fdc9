"""Shared pytest set-up.

- One temporary NEVE_HOME per test session, put in os.environ before any test (or nsm) runs, so
  no test reads or writes ~/.local/neve; it is removed when the session ends. Worker processes
  of pytest-xdist inherit the controller's folder.
- `--update-golden`: tests/test_programs.py rewrites the `# expect:` lines of run programs
  (those without error directives) from their actual output, then checks them as usual.
  Review the diff before committing: the flag records what the compiler does, right or wrong.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

_SESSION_HOME_VAR = "NEVE_TEST_SESSION_HOME"
_created_home: str | None = None
_previous_home: str | None = None


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden", action="store_true", default=False,
        help="rewrite the '# expect:' lines of tests/programs run programs from their actual output",
    )


def pytest_configure(config: pytest.Config) -> None:
    global _created_home, _previous_home
    # build progress lines would interleave with the stderr the tests compare; the progress
    # test (tests/build/test_one_path.py) turns them back on
    os.environ.setdefault("NSM_QUIET", "1")
    inherited = os.environ.get(_SESSION_HOME_VAR)
    if inherited and Path(inherited).is_dir():
        os.environ["NEVE_HOME"] = inherited
        return
    _previous_home = os.environ.get("NEVE_HOME")
    _created_home = tempfile.mkdtemp(prefix="neve-home-")
    os.environ["NEVE_HOME"] = _created_home
    os.environ[_SESSION_HOME_VAR] = _created_home


def pytest_unconfigure(config: pytest.Config) -> None:
    global _created_home
    if _created_home is None:
        return
    shutil.rmtree(_created_home, ignore_errors=True)
    os.environ.pop(_SESSION_HOME_VAR, None)
    if _previous_home is None:
        os.environ.pop("NEVE_HOME", None)
    else:
        os.environ["NEVE_HOME"] = _previous_home
    _created_home = None


@pytest.fixture(scope="session")
def neve_home() -> Path:
    """The session's temporary NEVE_HOME."""
    return Path(os.environ["NEVE_HOME"])


@pytest.fixture(scope="session")
def update_golden(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-golden"))
