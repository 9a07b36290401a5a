#!/usr/bin/env bash
# Set up and run the whole test suite: rules, services on SQLite and PostgreSQL, REST, websocket,
# two server processes over PostgreSQL NOTIFY and Redis, and a real browser (Debian chromium).
# Needs PostgreSQL on 127.0.0.1:5432 (user postgres, trust) and Redis on 127.0.0.1:6379
# (override with STARBOARD_TEST_PG / STARBOARD_TEST_REDIS). `.ci/run` starts them if they are down.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip >/dev/null
.venv/bin/python -m pip install --quiet -e '.[test]'

# The browser tests drive Debian's chromium (Playwright's own download cannot work offline).
if [ ! -x /usr/bin/chromium ]; then
  if [ "$(id -u)" = "0" ]; then
    echo "Installing Debian chromium for the browser tests…"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-dejavu-core) >/dev/null
  else
    echo "chromium is missing: sudo apt-get install chromium (browser tests will fail)" >&2
  fi
fi

.venv/bin/ruff check app tests migrations
exec .venv/bin/python -m pytest "$@"
