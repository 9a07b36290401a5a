"""What a High Guard ship keeps between the battles of a campaign, and its repairs there (TR-22).

A battle's damage outlives it: Hull, Structure and armour lost, system hits (and the penalties
they set: Thrust, Power, the rolled sensor and jump DMs), sections destroyed and capacity lost,
fuel used and the crew's step (TR-23). What belongs to the battle's rounds starts afresh: the
round's orders and reactions, the range board, fires (put out once the battle is over), power
failures, hull breaches and the bridge's one-round grounding, a jump out of the battle.

Between battles a ship may try the repairs the seed gives, TR-22's attempt made as a standard
check with the crew's DMs (GEN-05): one system in one section, success takes one hit off the
system and gives back what that hit took. Hull, Structure, armour, fuel and crew are not repaired
by those rules: a referee's ruling mends them (app/services/campaigns)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.rules.core import Roll, RuleError
from app.rules.dice import DiceSource
from app.rules.traveller.checks import DM, standard_check
from app.rules.traveller.crew import can_act, computer_dms, crew_dms
from app.rules.traveller.repairs import NAMES, _hits, _undo, in_section
from app.rules.traveller.ship import HgShip, RoundState


def hg_carry(part: dict[str, Any], setup: Mapping[str, Any]) -> dict[str, Any]:
    """The ship as its next battle starts it: the damage kept, the battle's rounds forgotten."""
    model = HgShip.model_validate(part)
    model.round = RoundState()
    model.ranges = {}
    model.initiative_base = None
    model.jumped = None
    model.abandon_round = None
    model.section_lost_round = None
    model.frozen_watch_ready = None
    model.systems.bridge_round = None
    for section in model.sections:
        section.fire = None
        section.offline_round = None
        section.breach_round = None
    for battery in model.batteries:
        battery.fired = {}
        battery.one_more_shot = None
    if model.spinal is not None:
        model.spinal.one_more_shot = None
    return model.model_dump(mode="json")  # as save_unit stores it


def hg_mend(
    part: dict[str, Any], section_name: str, system: str, dice: DiceSource
) -> tuple[dict[str, Any], str, list[Roll]]:
    """One TR-22 repair attempt between battles: a standard check with the crew's DMs (and the
    computer's, TR-19), success taking one hit off the system."""
    model = HgShip.model_validate(part)
    if not can_act(model):
        raise RuleError("the crew cannot make repairs (TR-23)", "ship")
    section = model.section(section_name)
    if section is None or section.destroyed:
        raise RuleError(f"no working section {section_name!r}", "section")
    if not in_section(section, system):
        raise RuleError(f"{system} is not in {section.name}", "system")
    if _hits(model, system) <= 0:
        raise RuleError(f"{system} is not damaged", "system")
    rolls: list[Roll] = []
    dms: list[DM] = crew_dms(model) + computer_dms(model, dice, "", rolls)
    label = NAMES.get(system) or system
    check = standard_check(dice, f"repair {label} in {section.name}", dms)
    rolls.append(check.roll)
    result = _undo(model, system) if check.success else "no progress"
    text = f"repairs {label} in {section.name} (TR-22): {check.sentence()}: {result}"
    return model.model_dump(mode="json"), text, rolls  # the part as save_unit stores it
