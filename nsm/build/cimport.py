"""`import c"zlib.h"`: a system header used from a program with no package of its own
(docs/interop.md, the one-line form).

The import names a package nsm writes once in $NEVE_HOME/cache/cimport/<stem>-<hash>/: a
`neve.toml` whose `[native]` table has the header alone (`headers = ["<zlib.h>"]`, no sources,
nothing compiled). Its bindings are then generated, cached and rebuilt by the same native
build as any package's (bindgen edge, ninja, content stamps). The library is named at link
time (`nsm run -l z prog.nv`), as a C compiler's `-l`.
"""
from __future__ import annotations

import hashlib
import re
from pathlib import Path

from .. import paths
from ..errors import NsmError


def header_package(spec: str) -> Path:
    """The package folder standing for the header `spec` (`<zlib.h>`), written if missing;
    NsmError when the include path has no such header."""
    from .bindgen.preprocess import find_system_header
    name = spec[1:-1]
    find_system_header(name)                       # a located error beats a failed build
    stem = re.sub(r"\W", "_", Path(name).stem) or "h"
    tag = hashlib.sha256(spec.encode()).hexdigest()[:12]
    root = paths.cache_dir() / "cimport" / f"{stem.lower()}-{tag}"
    text = (f'# Written by nsm for `import c"{name}"`; do not edit.\n'
            f'[package]\nname = "c_{stem.lower()}"\nversion = "0.0.0"\n\n'
            f'[native]\nheaders = ["{spec}"]\n')
    manifest = root / "neve.toml"
    try:
        if not manifest.is_file() or manifest.read_text() != text:
            from ..files import write_atomic
            root.mkdir(parents=True, exist_ok=True)
            write_atomic(manifest, text)
    except OSError as e:
        raise NsmError(f"cannot write {manifest}: {e.strerror or e}") from None
    return root
