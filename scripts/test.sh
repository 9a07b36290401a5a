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
# Exactly the locked, hash-checked packages (scripts/lock.sh updates the lock), then the app itself.
.venv/bin/python -m pip install --quiet --require-hashes -r requirements-test.lock
.venv/bin/python -m pip install --quiet --no-deps --no-build-isolation -e .

# The browser tests drive Debian's chromium (Playwright's own download cannot work offline); one
# security test runs deploy/nginx.conf in a real nginx (skipped if nginx is missing).
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium fonts-dejavu-core)
[ -x /usr/sbin/nginx ] || missing+=(nginx-light)
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" = "0" ]; then
    echo "Installing Debian ${missing[*]} for the browser and proxy tests…"
    # policy-rc.d keeps the nginx package from starting a server of its own on port 80.
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}") >/dev/null || true
    rm -f /usr/sbin/policy-rc.d
  else
    echo "missing: sudo apt-get install ${missing[*]} (browser tests will fail, the nginx test is skipped)" >&2
  fi
fi

.venv/bin/ruff check app tests migrations
exec .venv/bin/python -m pytest "$@"
