"""The `nsm` console script. Plain `nsm build` goes straight to nsm.buildcmd (no click, no
compiler imports); everything else to the click command line in nsm.cli."""
from __future__ import annotations

import sys


def main() -> None:
    args = sys.argv[1:]
    if args[:1] == ["build"]:
        from .buildcmd import BUILD_FLAGS, fast_build
        if set(args[1:]) <= BUILD_FLAGS:
            fast_build(args[1:])
            return
    from .cli import main as cli_main
    cli_main()
