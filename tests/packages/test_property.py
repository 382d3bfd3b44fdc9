"""Property test (issue 14 item 3): a TOML value of the wrong type in any manifest or lock
field, fed to every command that reads it (in-process, click's CliRunner), ends in a clean
error or a success, never a traceback, and writes nothing but nsm's caches (a snapshot of the
temporary root before and after)."""
from __future__ import annotations

import datetime
import hashlib
import os
import tempfile
import traceback
from contextlib import ExitStack
from pathlib import Path
from unittest import mock

import pytest
import tomli_w
from click.testing import CliRunner
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from nsm.cli import cli

C = "0123456789abcdef0123456789abcdef01234567"
MANIFEST = {"package": {"name": "app", "version": "0.1.0", "description": "d", "entry": "main.nv",
                        "src": "src"},
            "dependencies": {"csv": {"git": "alice/csv", "version": "^1"}}}
LOCK = {"version": 2, "package": [{"name": "csv", "version": "1.0.0", "source": "alice/csv",
                                   "commit": C, "tree": C, "hash": "sha256:" + "ab" * 32,
                                   "ref": "v1.0.0", "dependencies": []}],
        "roots": {"csv": {"git": "alice/csv"}}}

# field path -> the type it must have
MANIFEST_FIELDS = {("package",): dict, ("package", "name"): str, ("package", "version"): str,
                   ("package", "description"): str, ("package", "entry"): str,
                   ("package", "src"): str, ("dependencies",): dict,
                   ("dependencies", "csv"): dict,
                   **{("dependencies", "csv", k): str
                      for k in ("git", "version", "tag", "branch", "rev", "path")}}
LOCK_FIELDS = {("version",): int, ("package",): list, ("package", 0): dict,
               **{("package", 0, k): str
                  for k in ("name", "version", "source", "commit", "tree", "hash", "ref")},
               ("package", 0, "dependencies"): list, ("roots",): dict, ("roots", "csv"): dict,
               ("roots", "csv", "git"): str}

_leaf = st.one_of(st.integers(-2**63, 2**63 - 1), st.floats(allow_nan=False, allow_infinity=False),
                  st.booleans(), st.text(max_size=6), st.dates(),
                  st.datetimes(min_value=datetime.datetime(1900, 1, 1)))
VALUES = st.recursive(_leaf, lambda c: st.lists(c, max_size=3) |
                      st.dictionaries(st.text(min_size=1, max_size=4), c, max_size=3),
                      max_leaves=6)


def _wrong(kind: type):
    def bad(v) -> bool:
        if kind is int:
            return isinstance(v, bool) or not isinstance(v, int)
        return not isinstance(v, kind)
    return VALUES.filter(bad)


def _set(doc, path, value):
    doc = eval(repr(doc))           # a deep copy of plain TOML data
    node = doc
    for k in path[:-1]:
        node = node[k]
    node[path[-1]] = value
    return doc


def _snapshot(root: Path) -> dict[str, str]:
    out = {}
    for p in root.rglob("*"):
        rel = p.relative_to(root).as_posix()
        if rel.startswith(("home/cache", "home/lib/.staging")):
            continue
        out[rel] = hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "dir"
    return out


class BuildStarted(Exception):
    """Raised where a build would start work (the runtime, ninja): the command accepted a
    manifest the one reader rejects."""


def _no_build(*a, **k):
    raise BuildStarted("went on to build with a manifest nsm.manifest.parse rejects")


def _run(args: list[str], manifest: dict, lock: dict, guard_build: bool = False) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        proj = root / "proj"
        (proj / "src").mkdir(parents=True)
        (root / "remote").mkdir()
        (root / "home").mkdir()
        (proj / "neve.toml").write_text(tomli_w.dumps(manifest))
        (proj / "neve.lock").write_text(tomli_w.dumps(lock))
        (proj / "main.nv").write_text("main\n    print(1)\n")
        before = _snapshot(root)
        cwd = os.getcwd()
        os.chdir(proj)
        with ExitStack() as guards:
            if guard_build:
                guards.enter_context(mock.patch("nsm.build.runtime.ensure_runtime", _no_build))
                guards.enter_context(mock.patch("nsm.build.orchestrate.run_ninja", _no_build))
            try:
                r = CliRunner().invoke(cli, args, env={"NEVE_HOME": str(root / "home"),
                                                       "NSM_GIT_BASE": str(root / "remote"),
                                                       "NSM_GIT_TEMPLATE": None})
            finally:
                os.chdir(cwd)
        assert r.exception is None or isinstance(r.exception, SystemExit), (
            args, "".join(traceback.format_exception(r.exception)))
        assert "Traceback" not in r.output, r.output
        assert r.exit_code != 0 or "error" not in r.output.lower(), r.output
        assert _snapshot(root) == before, args


PACKAGE_COMMANDS = [["install"], ["install", "--locked"], ["add", "alice/json"],
                    ["remove", "csv"], ["list"], ["tree"], ["update"]]
LEAD_COMMANDS = [["build"], ["run"], ["test"], ["check", "main.nv"]]
FIELDS = st.sampled_from(sorted(MANIFEST_FIELDS, key=str))


def _bounded(n: int):
    return settings(max_examples=n, deadline=None, derandomize=True, database=None,
                    phases=[Phase.generate],        # no shrinking: the CI share is seconds
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


@pytest.mark.parametrize("args", PACKAGE_COMMANDS, ids=" ".join)
@_bounded(10)
@given(data=st.data())
def test_wrong_manifest_value(args, data):
    path = data.draw(FIELDS)
    _run(args, _set(MANIFEST, path, data.draw(_wrong(MANIFEST_FIELDS[path]))), LOCK)


@pytest.mark.parametrize("args", PACKAGE_COMMANDS, ids=" ".join)
@_bounded(10)
@given(data=st.data())
def test_wrong_lock_value(args, data):
    path = data.draw(st.sampled_from(sorted(LOCK_FIELDS, key=str)))
    _run(args, MANIFEST, _set(LOCK, path, data.draw(_wrong(LOCK_FIELDS[path]))))


@pytest.mark.parametrize("args", LEAD_COMMANDS, ids=" ".join)
@_bounded(5)
@given(data=st.data())
def test_wrong_manifest_value_build_commands(args, data):
    path = data.draw(FIELDS)
    _run(args, _set(MANIFEST, path, data.draw(_wrong(MANIFEST_FIELDS[path]))), LOCK,
         guard_build=args[0] != "check")
