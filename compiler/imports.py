"""The import map a compile is fed: for every module it may read, its key and what each of its
import paths resolves to. nsm's planner writes it (LANGUAGE.md 8's search order, packages, locks
and native bindings are nsm's business); the compiler only looks things up, as Go's types2 asks
its `Config.Importer` and cmd/go hands the compiler an `-importcfg`."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

FORMAT = "neve-importmap 1"


@dataclass
class ModuleEntry:
    """One module: `key` (symbol-safe, the same whichever unit compiles it), `imports` (import
    path `a/b` -> real path of the module, or None when not found), `tried` (for those not found:
    the candidates probed, in search order), `errors` (import path -> message, for imports that
    resolve to something unusable, e.g. a native package whose bindings are not built) and
    `bindings` (generated native bindings merged into this module, 11.2)."""
    key: str
    imports: dict[str, str | None] = field(default_factory=dict)
    tried: dict[str, list[str]] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    bindings: str | None = None


@dataclass
class ImportMap:
    """`std`: the real path of the standard library's entry module (loaded before every
    program); `modules`: real path -> ModuleEntry for every module reachable from the roots."""
    std: str | None
    modules: dict[str, ModuleEntry] = field(default_factory=dict)

    def entry(self, real: str) -> ModuleEntry | None:
        return self.modules.get(real)

    def to_json(self) -> str:
        mods = {p: {k: v for k, v in vars(e).items() if v} for p, e in sorted(self.modules.items())}
        return json.dumps({"format": FORMAT, "std": self.std, "modules": mods},
                          indent=0, sort_keys=True) + "\n"

    @classmethod
    def from_json(cls, text: str, where: str = "import map") -> "ImportMap":
        """Parse a map written by `to_json`; ValueError naming `where` when it is not one."""
        try:
            data = json.loads(text)
            if data.get("format") != FORMAT:
                raise ValueError(f"not a {FORMAT} file")
            mods = {p: ModuleEntry(**e) for p, e in data["modules"].items()}
            return cls(data["std"], mods)
        except (ValueError, TypeError, KeyError, AttributeError) as e:
            raise ValueError(f"{where}: malformed import map ({e})") from None

    @classmethod
    def read(cls, path: Path) -> "ImportMap":
        return cls.from_json(Path(path).read_text(), str(path))
