#!/usr/bin/env bash
# Installs the TextMate engine tests/editors runs (the npm packages package-lock.json pins).
# Debian's nodejs comes without npm, which Debian's npm package brings; a node build that bundles
# npm conflicts with that package, so it is installed only when npm is missing.
set -euo pipefail
cd "$(dirname "$0")"
command -v npm >/dev/null || apt-get install -y npm
npm ci --no-audit --no-fund --loglevel=error
