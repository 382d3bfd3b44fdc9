"""The bindgen cache: $NEVE_HOME/cache/bindgen/<sha256>.json (nsm.paths).

Two content keys, as ccache's "direct mode" does, so a hit runs neither the preprocessor nor
the parser:
- the *options key* hashes the format version, bindgen's own code, the header as given, the
  working folder, the options and the header's bytes; `<options key>.deps.json` lists the non-system headers the
  last run read;
- the *result key* hashes the options key and the path and bytes of each of those headers;
  `<result key>.json` holds the Bindings.
Changing any included non-system header changes the result key, so the next call reparses and
rewrites the dependency list. Files are written atomically (temporary file, then rename); an
unreadable entry is a miss and an unwritable cache only costs the next call a reparse.
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from ... import paths


def bindgen_cache_dir() -> Path:
    return paths.cache_dir() / "bindgen"


def cached(generate, header: Path, as_given: str, include_dirs: tuple, defines: tuple,
           cflags: tuple):
    from . import FORMAT_VERSION, Bindings
    try:
        header_bytes = header.read_bytes()
    except OSError:
        return generate(as_given, include_dirs=include_dirs, defines=defines, cflags=cflags)
    options = json.dumps([FORMAT_VERSION, _code_digest(), as_given, os.getcwd(),
                          list(include_dirs), list(defines), list(cflags)])
    options_key = _sha(options.encode() + b"\0" + header_bytes)
    folder = bindgen_cache_dir()
    deps = _read_json(folder / f"{options_key}.deps.json")
    if isinstance(deps, list):
        result_key = _result_key(options_key, deps)
        entry = _read_json(folder / f"{result_key}.json") if result_key else None
        if isinstance(entry, dict):
            try:
                return Bindings(entry["text"], list(entry["problems"]), list(entry["files"]),
                                from_cache=True)
            except (KeyError, TypeError):
                pass
    out = generate(as_given, include_dirs=include_dirs, defines=defines, cflags=cflags)
    deps = [os.path.abspath(f) for f in out.files]
    result_key = _result_key(options_key, deps)
    if result_key:
        try:
            folder.mkdir(parents=True, exist_ok=True)
            _write_json(folder / f"{result_key}.json",
                        {"text": out.text, "problems": out.problems, "files": out.files})
            _write_json(folder / f"{options_key}.deps.json", deps)
        except OSError:
            pass
    return out


def _code_digest() -> str:
    """bindgen's own sources and the parser's version: a changed mapping never serves stale
    entries, even when FORMAT_VERSION was not bumped."""
    from importlib.metadata import PackageNotFoundError, version
    h = hashlib.sha256()
    for src in sorted(Path(__file__).parent.glob("*.py")):
        h.update(src.name.encode() + b"\0" + src.read_bytes())
    try:
        h.update(version("cxxheaderparser").encode())
    except PackageNotFoundError:
        pass
    return h.hexdigest()


def _result_key(options_key: str, deps: list) -> str | None:
    h = hashlib.sha256(options_key.encode())
    for dep in deps:
        try:
            data = Path(dep).read_bytes()
        except (OSError, TypeError, ValueError):
            return None                               # gone or unreadable: a miss
        h.update(b"\0" + str(dep).encode() + b"\0" + hashlib.sha256(data).digest())
    return h.hexdigest()


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _read_json(path: Path):
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _write_json(path: Path, value) -> None:
    from ...files import write_atomic
    write_atomic(path, json.dumps(value, indent=1, sort_keys=True) + "\n")


