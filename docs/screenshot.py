"""Builds the documentation site and takes a headless-Chromium screenshot of one rendered page,
to look at what a reader sees (a script, not a test: Chromium is Debian's `chromium` package).

    python docs/screenshot.py [PAGE] [-o OUT.png]    # PAGE: a site path, default language/strings/
"""
from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("page", nargs="?", default="language/strings/")
    ap.add_argument("-o", "--out", default="site-screenshot.png")
    ap.add_argument("--size", default="1280,1600", help="window width,height in pixels")
    args = ap.parse_args()
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        sys.stderr.write("error: chromium is not installed (apt-get install chromium)\n")
        return 1
    with tempfile.TemporaryDirectory(prefix="neve-site-") as site:
        built = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q",
                                "-f", str(ROOT / "mkdocs.yml"), "-d", site])
        if built.returncode != 0:
            return built.returncode
        page = Path(site) / args.page / "index.html" if not args.page.endswith(".html") \
            else Path(site) / args.page
        if not page.is_file():
            sys.stderr.write(f"error: no page {args.page} in the built site\n")
            return 1
        out = Path(args.out).resolve()
        shot = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                               "--hide-scrollbars", f"--window-size={args.size}",
                               f"--screenshot={out}", page.as_uri()],
                              capture_output=True, text=True, timeout=120)
        if shot.returncode != 0 or not out.is_file():
            sys.stderr.write(shot.stderr)
            return 1
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
