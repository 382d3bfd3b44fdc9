"""mkdocs hook: fills the generated parts of the site while it builds (nsm/docgen.py): the nsm
command reference from the click app and the Frost API from Frost's Neve docstrings; and
teaches Pygments the `neve` blocks (neve_lexer.py)."""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
# mkdocs puts this folder on sys.path only while it loads this file: import the lexer now
import neve_lexer  # noqa: E402

MARKERS = {
    "<!-- generated: nsm-commands -->": lambda: _docgen().nsm_reference(_cli()),
    "<!-- generated: frost-api -->": lambda: _docgen().api_reference(ROOT / "packages/frost", "frost"),
}


def _docgen():
    from nsm import docgen
    return docgen


def _cli():
    from nsm.cli import cli
    return cli


def on_config(config):
    neve_lexer.register()
    return config


def on_page_markdown(markdown: str, page, config, files) -> str:
    for marker, make in MARKERS.items():
        if marker in markdown:
            markdown = markdown.replace(marker, make())
    return markdown
