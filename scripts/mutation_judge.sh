#!/usr/bin/env bash
# Re-judge named mutants after adding tests, while a mutation run may still be going: a private
# copy of mutants/app (as the last `mutation.sh` run generated it) and this checkout's tests.
#   ./scripts/mutation_judge.sh tests/rules/test_a.py,tests/rules/test_b.py NAME …
# A mutant that hangs hangs the judge (mutmut would call it a timeout, killed): wrap it in `timeout`.
set -euo pipefail
cd "$(dirname "$0")/.."
here=$PWD
copy=${MUTATION_JUDGE_DIR:-/tmp/starboard-mutation-judge}
mkdir -p "$copy"
rsync -a --delete "$here/mutants/app/" "$copy/app/"
rsync -a --delete --exclude __pycache__ "$here/tests/" "$copy/tests/"
cp "$here/pyproject.toml" "$copy/"
for f in templates static migrations alembic.ini docs examples; do ln -sfn "$here/$f" "$copy/$f"; done  # repointed: an earlier checkout's may be gone
tests=$1
shift
cd "$copy"
PYTHONPATH=$copy nice -n 15 "$here/.venv/bin/python" "$here/scripts/mutation_judge.py" "$tests" "$@" 2>&1 >/dev/null \
  | grep --line-buffered -E "^(SURVIVES|killed)"
