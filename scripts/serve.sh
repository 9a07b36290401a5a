#!/usr/bin/env bash
# Set up and run Starboard on the embedded SQLite database: creates .venv, installs the project,
# migrates, loads the demo battles once, prints the referee's and players' links, serves on :8000.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
# Exactly the locked, hash-checked packages (scripts/lock.sh updates the lock), then the app itself.
.venv/bin/python -m pip install --quiet --require-hashes -r requirements.lock
.venv/bin/python -m pip install --quiet --no-deps --no-build-isolation -e .
# `serve` runs uvicorn with the configured limits: TIMEOUT_KEEP_ALIVE (idle keep-alive, 5 s),
# HEADER_TIMEOUT (a request head must arrive within 10 s: slow-loris connections are closed),
# MAX_HEADER_BYTES (the largest request head, 16 KiB), MAX_WS_FRAME_BYTES, and
# --proxy-headers trusting FORWARDED_ALLOW_IPS (127.0.0.1).
exec .venv/bin/python -m app.cli serve "$@"
