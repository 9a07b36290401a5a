"""Former wordings of the log's sentences, so a battle file written before a sentence was reworded
still imports.

The import replays a file's log and compares every event it makes with the one recorded (the
file is trusted only as far as the rules reproduce it). A sentence the rules now say differently is
the same event told better, not a different outcome: each entry here names an event kind and
recognises its former text beside the one the replay made. Only the text is forgiven — the kind, ship, data and
visibility must match exactly, and a recorded text that is neither the current nor a former
wording still refuses the file.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from app.rules.dice import SEED_REVEALED

Event = dict[str, Any]
# (recorded text, the current text the rules made, the recorded row) → whether the recorded text is
# a former wording of the current one.
FormerWording = Callable[[str, str, list[Event]], bool]


def _shield_opening_repeated(recorded: str, made: str, row: list[Event]) -> bool:
    """A Star Trek shield sentence (ST-06, ST-13, ST-16) once repeated its damage summary's opening
    ("Shadow Cruiser hits Excelsior with Molecular Slicer for 80 (fore): First One fire counts
    double …" after the same opening in the summary); it now opens with the ship alone
    ("Excelsior: First One fire counts double …")."""
    for summary in (e for e in row if e.get("kind") == "damage"):
        lead = str(summary.get("text", "")).rsplit(": ", 1)[0]
        if not recorded.startswith(f"{lead}: "):
            continue
        rest = recorded[len(lead) + 2 :]
        name = made.removesuffix(f": {rest}")
        if name != made and f" hits {name}" in lead:
            return True
    return False


def _seed_revealed_without_a_seed(recorded: str, made: str, row: list[Event]) -> bool:
    """A physical-dice battle's end once said "The dice seed is revealed." as a server-rolled one's
    does; its players rolled the dice and there is no seed to reveal, so it now ends without it
    (GEN-02)."""
    return not made.endswith(SEED_REVEALED) and recorded == made + SEED_REVEALED


FORMER_WORDINGS: dict[str, FormerWording] = {
    "battle_end": _seed_revealed_without_a_seed,
    "shield_absorb": _shield_opening_repeated,
    "shield_drain": _shield_opening_repeated,
}


def in_current_wording(recorded: list[Event], made: list[Event]) -> list[Event]:
    """The recorded events, each one whose text is a former wording of the event made in its place
    told in the current wording; every other field is left as recorded, to be compared exactly."""
    if len(recorded) != len(made):
        return recorded
    told = []
    for old, new in zip(recorded, made, strict=True):
        former = FORMER_WORDINGS.get(str(old.get("kind")))
        same_event = {k: v for k, v in old.items() if k != "text"} == {
            k: v for k, v in new.items() if k != "text"
        }
        if former and same_event and former(str(old.get("text", "")), str(new.get("text", "")), recorded):
            old = {**old, "text": new["text"]}
        told.append(old)
    return told
