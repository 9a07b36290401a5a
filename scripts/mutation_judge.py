"""Judge named mutants against chosen test files, in one process, without disturbing a mutmut run.

Run by `scripts/mutation_judge.sh` inside a private copy of `mutants/app` (mutmut's trampolined
code), with this checkout's tests: for each name, `MUTANT_UNDER_TEST` switches that mutant on and
pytest runs the files (no conftest: the rules tests need none). Prints "killed" or "SURVIVES" per
name on stderr. Code that runs while modules import (decorators, module constants) runs once,
unmutated, as under mutmut itself, so its mutants cannot be judged either way.
"""

from __future__ import annotations

import os
import sys

import pytest


def main(tests: list[str], names: list[str]) -> None:
    args = [*tests, "-x", "-q", "-n", "0", "-p", "no:randomly", "-p", "no:cacheprovider"]
    args += ["-p", "no:timeout", "--noconftest", "-o", "addopts=", "--no-header", "-W", "ignore"]
    for name in names:
        os.environ["MUTANT_UNDER_TEST"] = name
        code = pytest.main(args)
        print(("SURVIVES " if code == 0 else "killed   ") + name, flush=True, file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1].split(","), sys.argv[2:])
