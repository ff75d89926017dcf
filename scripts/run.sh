#!/usr/bin/env bash
# The README's main job: set up a fresh machine and serve v1 over the embedded v2 sandbox.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e .
exec .venv/bin/v1bridge proxy "$@"
