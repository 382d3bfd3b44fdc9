"""Which files of a preprocessed header bind, and whose struct layouts count as visible.

The header named is always bound, and so is every non-system header it includes (a
package's own). A system header it pulls in only lends its types, unless it is part of the
named one: included by a bound file, and under a folder named after it beside it
(`sodium/core.h` of `sodium.h`) or a glibc `bits/` file (`bits/mathcalls.h` of `math.h`,
not `bits/getopt_core.h`, which `unistd.h` includes). Structs defined in `bits/` files
(glibc's `FILE`) stay opaque, as C intends; other definitions of bound files are visible
(11.3: pointers to them do not bind).
"""
from __future__ import annotations

import os
from pathlib import Path

from .preprocess import is_system_path


class Roles:
    def __init__(self, main: str, system_files: set[str], includer: dict[str, str]) -> None:
        self.main = main
        self.system_files = system_files
        self.includer = includer
        self._bound: dict[str, bool] = {}
        self.main_is_system = is_system_path(main) or main in system_files
        self.main_dir = os.path.dirname(os.path.abspath(main))
        self.stem = Path(main).stem

    def system(self, f: str) -> bool:
        return f in self.system_files or is_system_path(f)

    def bound(self, f: str) -> bool:
        if f not in self._bound:
            self._bound[f] = False                    # an include cycle does not bind
            self._bound[f] = f == self.main or not self.system(f) or (
                self.main_is_system and self._part_of_main(f)
                and f in self.includer and self.bound(self.includer[f]))
        return self._bound[f]

    def layouts(self, f: str) -> bool:
        return self.bound(f) and "bits" not in Path(f).parts

    def _part_of_main(self, f: str) -> bool:
        rel = os.path.relpath(os.path.abspath(f), self.main_dir)
        parts = Path(rel).parts
        if not parts or parts[0] == "..":
            return False
        return parts[0] == self.stem or "bits" in parts[:-1]
