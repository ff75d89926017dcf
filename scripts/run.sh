#!/usr/bin/env bash
# The README's main job: set up a fresh machine and serve v1 over the embedded v2 sandbox.
# pip runs only when the install is not current: no .venv yet, no v1bridge in it, or pyproject.toml changed
# since the last install (the package is installed editable: code changes need no reinstall).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] || python3 -m venv .venv
stamp=.venv/.v1bridge-installed
wanted="$(python3 -c 'import hashlib, sys; print(hashlib.sha256(open("pyproject.toml", "rb").read()).hexdigest())')"
if [ ! -x .venv/bin/v1bridge ] || [ "$(cat "$stamp" 2>/dev/null)" != "$wanted" ]; then
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q -e .
  echo "$wanted" > "$stamp"
fi
exec .venv/bin/v1bridge proxy "$@"
