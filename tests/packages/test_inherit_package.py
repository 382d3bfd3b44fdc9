"""Inheritance across packages (LANGUAGE.md 7.5): a program subclasses an installed package's
abstract class, and the package's own code dispatches to the program's overrides."""
from __future__ import annotations

from .conftest import nsm

LAYERS = """class Layer
    str tag
    ctor(str tag)
        self.tag = tag
    def f64 forward(f64 x)
        ...
    def str name()
        return "layer " + self.tag

def f64 run(array<Layer> ls, f64 x)
    for l in ls
        x = l.forward(x)
    return x
"""

MAIN = """import layers

class Double(layers.Layer)
    ctor()
        super("double")
    def f64 forward(f64 x)
        return x * f64(2)
    def str name()
        return "my " + super.name()

main
    array<layers.Layer> ls = [new Double(), new Double()]
    print(layers.run(ls, f64(3)), " ", ls[0].name(), " ", ls[1])
    layers.Layer l = new layers.Layer("base")
"""


def test_subclass_of_an_installed_package_class(reg, tmp_path):
    reg.publish("layers", "1.0.0", files={"include.nv": LAYERS})
    app = tmp_path / "app"
    app.mkdir()
    (app / "neve.toml").write_text('[package]\nname = "app"\nversion = "0.1.0"\n\n'
                                   '[dependencies]\nlayers = { git = "alice/layers", version = "^1" }\n')
    (app / "main.nv").write_text(MAIN)
    assert nsm("install", cwd=app).returncode == 0
    r = nsm("run", "main.nv", cwd=app, timeout=300)
    assert r.returncode == 1 and "cannot instantiate abstract class Layer: forward() is abstract" \
        in r.stderr, r.stderr
    (app / "main.nv").write_text(MAIN.rsplit("\n    layers.Layer", 1)[0] + "\n")
    r = nsm("run", "main.nv", cwd=app, timeout=300)
    assert (r.returncode, r.stdout) == (0, "12.0 my layer double <Double>\n"), r.stderr
