"""The LLVM IR that `nsm run --emit ir|llvm` prints for a test program, split into its functions."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

BIN = Path(sys.executable).parent


def function_bodies(folder: Path, stem: str, program: str, emit: str = "ir") -> dict[str, str]:
    """Each function of `program` (written to folder/stem.nv) by its source name: the text from
    its `define` to its closing brace."""
    p = folder / f"{stem}.nv"
    p.write_text(program)
    r = subprocess.run([str(BIN / "nsm"), "run", "--emit", emit, str(p)], capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    pattern = rf"^define [^@]*@\"?nv\.{stem}_\w+\.([\w.]+)\"?\(.*?^}}"
    return {m.group(1): m.group(0) for m in re.finditer(pattern, r.stdout, re.S | re.M)}
