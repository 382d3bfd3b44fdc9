"""neve.lock as written by hand or by an attacker (issue 14 items 2 and 3): every field is
validated with one located line and a hint; lock format 1 is read and rewritten as 3, a newer
format is refused naming both."""
from __future__ import annotations

import pytest

from nsm import lock as lockfile
from nsm.errors import NsmError

from .conftest import nsm

C = "0123456789abcdef0123456789abcdef01234567"
H = "sha256:" + "ab" * 32
GOOD = ("version = 3\n\n[[package]]\nname = \"csv\"\nversion = \"1.0.0\"\nsource = \"alice/csv\"\n"
        f"commit = \"{C}\"\ntree = \"{C}\"\nhash = \"{H}\"\nref = \"v1.0.0\"\ndependencies = []\n")


def test_good_lock_reads():
    lk = lockfile.parse(GOOD, "neve.lock")
    assert lk.packages["csv"] == lockfile.LockedPackage("csv", "1.0.0", "alice/csv", C, C, H,
                                                        "v1.0.0", ())
    assert lockfile.parse(lockfile.dumps(lk), "x") == lk


@pytest.mark.parametrize("old,new,msg", [
    (f'commit = "{C}"', 'commit = "abc"', "neve.lock:7: commit must be 40 hex digits"),
    (f'commit = "{C}"', "commit = 5", "neve.lock:7: commit must be a string"),
    (f'tree = "{C}"', 'tree = "x"', "neve.lock:8: tree must be 40 hex digits"),
    (f'hash = "{H}"', 'hash = "md5:1"', "neve.lock:9: hash must be sha256: and 64 hex digits"),
    ('version = "1.0.0"', 'version = "1.0.0/../../../owned"',
     "neve.lock:5: invalid version '1.0.0/../../../owned'"),
    ('version = "1.0.0"', 'version = "1.0"',
     "neve.lock:5: version '1.0' is not written as nsm writes it (1.0.0)"),
    ('name = "csv"', 'name = "../csv"', "neve.lock:4: invalid package name '../csv'"),
    ('source = "alice/csv"', 'source = "ext::sh -c x"',
     "neve.lock:6: invalid git source 'ext::sh -c x'"),
    ('source = "alice/csv"', 'source = "a/b/c"', "neve.lock:6: invalid git source 'a/b/c'"),
    ('ref = "v1.0.0"', 'ref = "--upload-pack=x"', "neve.lock:10: invalid git ref"),
    ('dependencies = []', 'dependencies = ["json"]',
     "neve.lock:11: dependency 'json' of 'csv' has no [[package]] entry"),
    ('dependencies = []', 'dependencies = "json"',
     "neve.lock:11: dependencies must be a list of package names"),
    ('dependencies = []', 'owner = "me"', "neve.lock:11: unknown key 'owner'"),
    (f'hash = "{H}"\n', '', "neve.lock:3: missing key 'hash'"),
    ("version = 3", "version = 1.5", "neve.lock:1: version (the lock format) must be an integer"),
    ("version = 3", 'version = "2"', "neve.lock:1: version (the lock format) must be an integer"),
    ("version = 3\n", "", "neve.lock:1: missing the lock format `version = N`"),
    ("version = 3", "version = 3\nroots = 5", "neve.lock:2: roots must be a table"),
    (GOOD, "version = 3\npackage = 3\n", "neve.lock:1: package must be an array"),
    ('name = "csv"', "name = 1", "neve.lock:4: name must be a string"),
    ('name = "csv"', 'name = "csv"\nname = "x"', "neve.lock: Cannot overwrite a value"),
])
def test_bad_fields_are_located(old, new, msg):
    assert old in GOOD
    with pytest.raises(NsmError) as e:
        lockfile.parse(GOOD.replace(old, new, 1), "neve.lock")
    assert e.value.message.startswith(msg), e.value.message
    assert e.value.hint == lockfile.HINT or "newer" in e.value.message


def test_roots_are_validated():
    text = GOOD.replace("version = 3\n", 'version = 3\n\n[roots.csv]\ngit = 5\n', 1)
    with pytest.raises(NsmError) as e:
        lockfile.parse(text, "neve.lock")
    assert e.value.message == "neve.lock:3: [roots] dependency 'csv': values must be strings"


def test_newer_format_is_refused_naming_both(tmp_path):
    (tmp_path / "neve.toml").write_text('[package]\nname = "app"\nversion = "0.1.0"\n')
    (tmp_path / "neve.lock").write_text(GOOD.replace("version = 3", "version = 4"))
    r = nsm("install", cwd=tmp_path)
    assert r.returncode == 1
    assert r.stderr == (f"error: {tmp_path / 'neve.lock'}:1: lock format 4 is newer than this "
                        "nsm's (format 3)\nhint: upgrade nsm to read it\n")


def test_format_1_lock_is_read_and_rewritten(reg, tmp_path):
    reg.publish("csv", "1.0.0")
    app = tmp_path / "app"
    app.mkdir()
    (app / "neve.toml").write_text('[package]\nname = "app"\nversion = "0.1.0"\n\n'
                                   '[dependencies]\ncsv = { git = "alice/csv" }\n')
    assert nsm("install", cwd=app).returncode == 0
    text = (app / "neve.lock").read_text()
    url = str(reg.repo("csv"))
    old = text.replace("version = 3", "version = 1").replace('"alice/csv"', f'"{url}"')
    (app / "neve.lock").write_text(old)
    assert lockfile.read(app / "neve.lock").format == 1
    r = nsm("install", "--locked", cwd=app)
    assert r.returncode == 0, r.stderr
    now = (app / "neve.lock").read_text()
    assert now.startswith(lockfile.HEADER + "version = 3\n") and lockfile.read(app / "neve.lock")
    r = nsm("update", cwd=app)
    assert r.returncode == 0 and (app / "neve.lock").read_text() == text     # spelled again


def test_not_utf8_lock(tmp_path):
    (tmp_path / "neve.lock").write_bytes(b"version = 3\n# \xff\n")
    with pytest.raises(NsmError, match=r"neve.lock: not UTF-8 text \(invalid start byte at "
                                       r"byte 14\)"):
        lockfile.read(tmp_path / "neve.lock")
