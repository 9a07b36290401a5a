#!/usr/bin/env bash
# Set up and run the whole test suite: rules, services on SQLite and PostgreSQL, REST, websocket,
# two server processes over PostgreSQL NOTIFY and Redis, and a real browser (Debian chromium).
# Needs PostgreSQL on 127.0.0.1:5432 (user postgres, trust) and Redis on 127.0.0.1:6379
# (override with STARBOARD_TEST_PG / STARBOARD_TEST_REDIS). `.ci/run` starts them if they are down.
set -euo pipefail
cd "$(dirname "$0")/.."
# The suite starts some fifty Python processes (its two workers, servers, CLI runs, migrations); with
# PYTHONDONTWRITEBYTECODE set (some machines set it) none keeps its compiled modules, and each
# compiles the app and the tests again: ten CPU-seconds a worker before its first test, half a
# second a server or CLI run.
unset PYTHONDONTWRITEBYTECODE
PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
# Exactly the locked, hash-checked packages (scripts/lock.sh updates the lock), then the app itself.
.venv/bin/python -m pip install --quiet --require-hashes -r requirements-test.lock
.venv/bin/python -m pip install --quiet --no-deps --no-build-isolation -e .

# The browser tests drive Debian's chromium (Playwright's own download cannot work offline); one
# security test runs deploy/nginx.conf in a real nginx. A tool that cannot be installed stops the
# run here with the reason; a run that means to go without them says so with -m "not browser" /
# -m "not nginx" (those tests fail, not skip, when their tool is missing).
missing=()
[ -x /usr/bin/chromium ] || [[ "$*" == *"not browser"* ]] || missing+=(chromium fonts-dejavu-core)
[ -x /usr/sbin/nginx ] || [[ "$*" == *"not nginx"* ]] || missing+=(nginx-light)
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" != "0" ]; then
    echo "scripts/test.sh: missing ${missing[*]}: run 'sudo apt-get install ${missing[*]}'," >&2
    echo "  or deselect the tests that need them (-m \"not browser and not nginx\")." >&2
    exit 1
  fi
  echo "Installing Debian ${missing[*]} for the browser and proxy tests…"
  apt_log="$(mktemp)"
  # policy-rc.d keeps the nginx package from starting a server of its own on port 80.
  printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d
  status=0
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"; } \
    >"$apt_log" 2>&1 || status=$?
  rm -f /usr/sbin/policy-rc.d
  if [ "$status" -ne 0 ] || { [[ " ${missing[*]} " == *" chromium "* ]] && [ ! -x /usr/bin/chromium ]; } \
    || { [[ " ${missing[*]} " == *" nginx-light "* ]] && [ ! -x /usr/sbin/nginx ]; }; then
    echo "scripts/test.sh: could not install ${missing[*]} (apt-get exit $status); its output:" >&2
    cat "$apt_log" >&2
    rm -f "$apt_log"
    exit 1
  fi
  rm -f "$apt_log"
fi

.venv/bin/ruff check app tests migrations scripts
.venv/bin/ruff format --check --quiet app tests migrations scripts || { echo "scripts/test.sh: run .venv/bin/ruff format app tests migrations scripts" >&2; exit 1; }
# Two workers (pytest-xdist), a test file each at a time: the suite's wall time is about halved on
# two cores. Each worker has its own PostgreSQL database and small pools (tests/conftest.py). The
# files go in the order tests/conftest.py gives them, longest first (xdist's own reorder would
# put the one-test files — the minute-long schema fuzz among them — last, leaving a long tail).
# STARBOARD_TEST_WORKERS=0 runs serially; an explicit -n in the arguments wins.
workers="${STARBOARD_TEST_WORKERS:-2}"
xdist=()
if [ "$workers" != "0" ] && [[ " $* " != *" -n "* ]]; then
  xdist=(-n "$workers" --dist loadfile --no-loadscope-reorder)
fi
exec .venv/bin/python -m pytest "${xdist[@]}" "$@"
