"""`nsm new NAME`: a new package folder with neve.toml, src/, tests/, README.md, .gitignore."""
from __future__ import annotations

from pathlib import Path

from .errors import NsmError
from .registry.names import check_segment


def new_package(parent: Path, name: str) -> Path:
    """Create the package `name` under `parent` and return its folder. NsmError if the name
    is invalid or the folder exists; nothing is left behind on failure."""
    check_segment(name, "package name")
    if not name.isidentifier():
        raise NsmError(f"invalid package name '{name}'",
                       "a package is imported by name, so use letters, digits and '_'")
    root = parent / name
    if root.exists():
        raise NsmError(f"{root} already exists")
    files = {
        "neve.toml": f'[package]\nname = "{name}"\nversion = "0.1.0"\ndescription = ""\n'
                     f'src = "src"\n\n[dependencies]\n',
        "src/include.nv": f'# The entry module of {name}: `import {name}` binds these names.\n\n'
                          '# A greeting for `who`.\ndef str greet(str who)\n'
                          '    return "Hello, " + who + "!"\n',
        "tests/test_greet.nv": f'import include as {name}\n\nmain\n    print({name}.greet("Neve"))'
                               '  # expect: Hello, Neve!\n',
        "README.md": f"# {name}\n\nA Neve package. Use it with `import {name}`.\n",
        ".gitignore": "build/\n",
    }
    tmp = parent / f".{name}.new"
    try:
        for rel, text in files.items():
            (tmp / rel).parent.mkdir(parents=True, exist_ok=True)
            (tmp / rel).write_text(text)
        tmp.rename(root)
    except OSError as e:
        import shutil
        shutil.rmtree(tmp, ignore_errors=True)
        raise NsmError(f"cannot create {root}: {e.strerror}")
    return root
