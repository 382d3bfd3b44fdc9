"""Path dependencies (`dep = { path = "../dep" }`): build and run use them in place, the lock
records them without a commit, their git dependencies are resolved with the package's; the
planner refuses modules whose real path leaves their package (issue 14, items 1 and "path
dependencies")."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

from nsm.lock import read

from .conftest import nsm


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_path_dependency_builds_in_place_and_is_locked_without_a_commit(reg, tmp_path):
    reg.publish("greet", "1.2.0")
    dep = write(tmp_path / "libs" / "shapes", {
        "neve.toml": '[package]\nname = "shapes"\nversion = "0.3.0"\n\n[dependencies]\n'
                     'greet = { git = "alice/greet", version = "^1" }\n',
        "include.nv": "import greet\ndef int area(int w, int h)\n    return w * h\n"
                      "def str who()\n    return greet.version()\n"})
    app = write(tmp_path / "app", {
        "neve.toml": '[package]\nname = "app"\nversion = "0.1.0"\n\n[dependencies]\n'
                     'shapes = { path = "../libs/shapes" }\n',
        "main.nv": "import shapes\nmain\n    print(shapes.area(6, 7), \" \", shapes.who())\n"})
    before = snapshot(dep)
    r = nsm("install", cwd=app)                  # shapes' own git dependency is resolved
    assert r.returncode == 0, r.stderr
    lock = read(app / "neve.lock")
    assert set(lock.packages) == {"greet"} and lock.packages["greet"].version == "1.2.0"
    assert {n: (p.path, p.version) for n, p in lock.paths.items()} == {"shapes": ("../libs/shapes", "0.3.0")}
    r = nsm("run", "main.nv", cwd=app, timeout=300)
    assert (r.returncode, r.stdout) == (0, "42 greet 1.2.0\n"), r.stderr
    (dep / "include.nv").write_text((dep / "include.nv").read_text().replace("w * h", "w * h + 1"))
    r = nsm("run", "main.nv", cwd=app, timeout=300)      # an edit in the dependency is seen
    assert (r.returncode, r.stdout) == (0, "43 greet 1.2.0\n"), r.stderr
    after = snapshot(dep)
    assert set(after) == set(before)                     # nothing written into its folder


def test_missing_path_dependency_is_a_located_error(reg, tmp_path):
    app = write(tmp_path / "app", {
        "neve.toml": '[package]\nname = "app"\nversion = "0.1.0"\n\n[dependencies]\n'
                     'gone = { path = "../gone" }\n',
        "main.nv": "import gone\nmain\n    print(1)\n"})
    for args in (("install",), ("build",), ("run", "main.nv")):
        r = nsm(*args, cwd=app)
        assert r.returncode == 1 and "Traceback" not in r.stderr, (args, r.stderr)
        assert "path dependency 'gone' has no neve.toml" in r.stderr, (args, r.stderr)


def test_a_module_linked_out_of_its_package_is_refused(reg, tmp_path):
    secret = tmp_path / "secret.nv"
    secret.write_text("def int leak()\n    return 7\n")
    app = write(tmp_path / "app", {
        "neve.toml": '[package]\nname = "app"\nversion = "0.1.0"\n',
        "main.nv": "import inner\nmain\n    print(inner.leak())\n"})
    os.symlink(secret, app / "inner.nv")
    r = nsm("run", "main.nv", cwd=app)
    assert r.returncode == 1, r.stdout
    assert "main.nv:1:1: error: module" in r.stderr and "leaves its package" in r.stderr, r.stderr
    (app / "inner.nv").unlink()
    os.symlink(app / "real.nv", app / "inner.nv")           # a link inside the package is fine
    (app / "real.nv").write_text("def int leak()\n    return 8\n")
    r = nsm("run", "main.nv", cwd=app)
    assert (r.returncode, r.stdout) == (0, "8\n"), r.stderr


def test_a_workspace_shares_one_lock_and_builds_every_member(reg, tmp_path):
    reg.publish("greet", "1.0.0")
    ws = write(tmp_path / "ws", {
        "neve.toml": '[workspace]\nmembers = ["geo", "app"]\n',
        "geo/neve.toml": '[package]\nname = "geo"\nversion = "0.1.0"\n',
        "geo/include.nv": "def int sq(int x)\n    return x * x\n",
        "app/neve.toml": '[package]\nname = "app"\nversion = "0.1.0"\n\n[dependencies]\n'
                         'geo = { path = "../geo" }\ngreet = { git = "alice/greet" }\n',
        "app/main.nv": "import geo\nimport greet\nmain\n    print(geo.sq(9), \" \", greet.version())\n"})
    r = nsm("install", cwd=ws / "app")
    assert r.returncode == 0, r.stderr
    assert not (ws / "app" / "neve.lock").exists()          # one lock, at the workspace root
    lock = read(ws / "neve.lock")
    assert set(lock.packages) == {"greet"} and lock.paths["geo"].path == "geo"
    r = nsm("build", cwd=ws)
    assert r.returncode == 0, r.stderr
    assert "Finished debug build of geo" in r.stderr and "Finished debug build of app" in r.stderr
    out = subprocess.run([str(ws / "app" / "build" / "debug" / "bin" / "app")], capture_output=True,
                         text=True)
    assert out.stdout == "81 greet 1.0.0\n", out.stderr
    r = nsm("run", "main.nv", cwd=ws / "app")
    assert (r.returncode, r.stdout) == (0, "81 greet 1.0.0\n"), r.stderr
