"""Sum up `mutmut results --all true` (read on stdin) for the mutants the run chose.

Arguments are the run's mutant-name patterns (none: every mutant). Prints the counts, the score
(killed and timed-out over all) and every survivor's name, for docs/testing.md.
"""

from __future__ import annotations

import fnmatch
import sys
from collections import Counter


def main(patterns: list[str]) -> None:
    counts: Counter[str] = Counter()
    survivors: list[str] = []
    for line in sys.stdin:
        name, _, status = line.strip().rpartition(": ")
        if not name or (patterns and not any(fnmatch.fnmatch(name, p) for p in patterns)):
            continue
        counts[status] += 1
        if status == "survived":
            survivors.append(name)
    total = sum(counts.values())
    killed = counts["killed"] + counts["timeout"]
    score = 100 * killed / total if total else 0.0
    others = ", ".join(
        f"{s} {n}" for s, n in sorted(counts.items()) if s not in {"killed", "timeout", "survived"}
    )
    print(f"mutants: {total}  killed: {killed}  survived: {counts['survived']}  score: {score:.1f}%")
    if others:
        print(f"other outcomes: {others}")
    for name in survivors:
        print(f"  survived: {name}")


if __name__ == "__main__":
    main(sys.argv[1:])
