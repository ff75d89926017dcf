#!/usr/bin/env bash
# The README's test command: set up a fresh machine and run the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."
# The HTML report test renders the page in headless Chromium (Debian's package).
if ! command -v chromium >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  (apt-get update -qq && apt-get install -y -qq chromium >/dev/null) || echo "chromium could not be installed; the browser test will be skipped" >&2
fi
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e '.[test]'
exec .venv/bin/python -m pytest "$@"
