#!/usr/bin/env bash
# The README's test command: set up a fresh machine and run the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."
# The HTML report test renders the page in headless Chromium (Debian's package).
if ! command -v chromium >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  (apt-get update -qq && apt-get install -y -qq chromium >/dev/null) || echo "chromium could not be installed; the browser test will be skipped" >&2
fi
# The benchmark harness test drives wrk against nginx (bench/hotpath.py); Debian's packages.
if { ! command -v wrk >/dev/null 2>&1 || ! command -v nginx >/dev/null 2>&1; } && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  (apt-get update -qq && apt-get install -y -qq wrk nginx-light >/dev/null) || echo "wrk/nginx could not be installed; the harness test will be skipped" >&2
fi
# The SARIF test validates against the official SARIF 2.1.0 JSON schema, which
# Microsoft ships in an npm package; fetched once into .cache/ (not committed).
if [ ! -f .cache/sarif-2.1.0.json ] && command -v npm >/dev/null 2>&1; then
  mkdir -p .cache/npm && (cd .cache/npm && npm pack --silent @microsoft/jest-sarif@1.0.0-beta.0 >/dev/null 2>&1 \
    && tar xzf microsoft-jest-sarif-1.0.0-beta.0.tgz package/lib/schemas/sarif-2.1.0-rtm.5.json \
    && cp package/lib/schemas/sarif-2.1.0-rtm.5.json ../sarif-2.1.0.json) \
    || echo "official SARIF schema not fetched; its test will be skipped" >&2
fi
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e '.[test]'
exec .venv/bin/python -m pytest "$@"
