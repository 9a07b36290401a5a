#!/usr/bin/env bash
# Update the hash-locked requirement files from pyproject.toml: requirements.lock (the app) and
# requirements-test.lock (the app and its test extras), each with the build backend for the editable
# install, every version pinned and every file's SHA-256. serve.sh, test.sh and the Dockerfile install
# only from these (pip install --require-hashes), so every machine gets the same packages.
#   ./scripts/lock.sh                     keep current pins, add what pyproject.toml newly asks for
#   ./scripts/lock.sh --upgrade           move every pin to the newest allowed release
#   ./scripts/lock.sh --upgrade-package fastapi
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
TOOLS=var/lock-tools
if [ ! -x "$TOOLS/bin/pip-compile" ]; then
  "$PYTHON" -m venv "$TOOLS"
  "$TOOLS/bin/python" -m pip install --quiet "pip-tools==7.6.2"
fi
common=(--quiet --generate-hashes --allow-unsafe --strip-extras --no-emit-index-url --no-emit-find-links
        --build-deps-for editable)
"$TOOLS/bin/pip-compile" "${common[@]}" "$@" -o requirements.lock pyproject.toml
"$TOOLS/bin/pip-compile" "${common[@]}" "$@" --extra test -o requirements-test.lock pyproject.toml
echo "requirements.lock: $(grep -c '==' requirements.lock) pins; requirements-test.lock: $(grep -c '==' requirements-test.lock) pins"
