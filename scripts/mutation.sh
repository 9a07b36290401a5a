#!/usr/bin/env bash
# Mutation testing of the rules core: mutmut changes app/rules one small edit at a time (a `>=` to
# `>`, a number to another, a name to None) and runs the rules tests against each change; a change
# no test notices ("survived") marks a clause the suite does not pin down. A measurement, like the
# benchmarks, not part of CI: the whole of app/rules takes hours on two cores.
#   ./scripts/mutation.sh                               every mutant of app/rules
#   ./scripts/mutation.sh 'app.rules.shadow.pain.*'     the mutants of one module (mutmut's names)
#   MUTATION_CHILDREN=1 ./scripts/mutation.sh …         fewer parallel workers (default: 2)
# Settings are in pyproject.toml's [tool.mutmut]; results stay in mutants/ (git-ignored), so a
# second run re-tests only what changed. `.venv/bin/mutmut show NAME` prints one survivor's diff.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/mutmut ]; then
  [ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
  .venv/bin/python -m pip install --quiet --require-hashes -r requirements-test.lock
  .venv/bin/python -m pip install --quiet --no-deps --no-build-isolation -e .
fi
mkdir -p var  # the run log goes there; a fresh checkout has no var/
start=$(date +%s)
.venv/bin/mutmut run --max-children "${MUTATION_CHILDREN:-2}" "$@" > var/mutation-run.log 2>&1 \
  || { tail -n 40 var/mutation-run.log; exit 1; }
elapsed=$(( $(date +%s) - start ))
# The score over the mutants this run chose (all of app/rules, or the patterns given).
.venv/bin/mutmut results --all true 2>/dev/null | .venv/bin/python scripts/mutation_score.py "$@"
echo "run time: ${elapsed} s (${MUTATION_CHILDREN:-2} workers)"
