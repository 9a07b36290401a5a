#!/usr/bin/env bash
# Set up and run Starboard on the embedded SQLite database: creates .venv, installs the project,
# migrates, loads the demo battles once, prints the referee's and players' links, serves on :8000.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip >/dev/null
.venv/bin/python -m pip install --quiet -e .
exec .venv/bin/python -m app.cli serve "$@"
