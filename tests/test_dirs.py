"""Folder errors that need a real folder (14.7): a non-empty folder, a file where a folder is
wanted. Run in a temporary working folder, so the messages name relative paths."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

NSM = Path(sys.executable).parent / "nsm"


def _run(tmp_path: Path, body: str) -> subprocess.CompletedProcess:
    (tmp_path / "prog.nv").write_text("main\n" + "".join(f"    {l}\n" for l in body.splitlines()))
    return subprocess.run([str(NSM), "run", "prog.nv"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300)


def test_remove_dir_of_a_full_folder(tmp_path):
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "f.txt").write_text("x")
    r = _run(tmp_path, 'remove_dir("full")')
    assert r.returncode == 1
    assert r.stderr.splitlines()[0] == \
        'prog.nv:2:5: runtime error: cannot remove folder "full": folder not empty'
    assert (tmp_path / "full" / "f.txt").exists()


def test_make_dir_errors(tmp_path):
    (tmp_path / "here").mkdir()
    (tmp_path / "afile").write_text("x")
    r = _run(tmp_path, 'make_dir("here")')
    assert r.stderr.splitlines()[0] == \
        'prog.nv:2:5: runtime error: cannot make folder "here": already exists'
    r = _run(tmp_path, 'make_dir("here", parents = true)\nmake_dir("afile/sub", parents = true)')
    assert r.stderr.splitlines()[0] == \
        'prog.nv:3:5: runtime error: cannot make folder "afile/sub": not a folder'


def test_remove_file_of_a_folder(tmp_path):
    (tmp_path / "d").mkdir()
    r = _run(tmp_path, 'remove_file("d")')
    assert r.stderr.splitlines()[0] == 'prog.nv:2:5: runtime error: cannot remove file "d": is a folder'
    assert (tmp_path / "d").is_dir()
