"""Hits entered from the table (TR-14) and the referee's ruling on a crippled ship; how a hit
lands is in hits.py."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from app.rules.core import Actor, Event, RuleError
from app.rules.dice import DiceSource
from app.rules.ruleset import action, mark
from app.rules.state import BattleState
from app.rules.traveller.crew import abandon_ship
from app.rules.traveller.hits import Resolution, damage_section, ship_system_hit
from app.rules.traveller.ship import HgShip


class EnteredHit(BaseModel):
    """A hit resolved at the table by the core rules (GEN-03): a starship or small craft attacking
    a capital ship (TR-14), or any effect the referee enters."""

    target: str
    section: str = Field(max_length=40)
    hull_damage: int = Field(default=0, ge=0, le=100000)
    system: str | None = Field(default=None, description="slot kind: m_drive, power_plant, sensors, command…")
    source: str | None = None
    core_rules: bool = Field(default=True, description="TR-14: no third drive/power/sensor/bridge hit")


def _may_enter(state: BattleState, p: EnteredHit, actor: Actor) -> None:
    if actor.is_referee or (p.source and actor.commands(p.source)):
        return
    raise RuleError("enter hits for a ship you command, or as referee", "source")


# The scoring ship (when named) is the acting ship: its commander or the referee enters the hit, and a
# ship destroyed or gone scores none (GEN-04); without one, only the referee enters it.
# A hit is damage like any other entry; the High Guard ship part reads the order of hits (TR-14's
# third drive hit), so two on one ship never commute there.
def entered_hit(state: BattleState, p: EnteredHit, actor: Actor, dice: DiceSource) -> list[Event]:
    """GEN-03, TR-14: a hit the core rules resolve (a starship's or small craft's attack) is entered:
    damage to a section and/or one system hit."""
    target = state.ship(p.target, "target")
    if "hg_ship" not in target.parts:
        raise RuleError(f"{target.name} is not a High Guard ship", "target")
    model = HgShip.model_validate(target.parts["hg_ship"])
    section = model.section(p.section)
    if section is None:
        raise RuleError(f"{target.name} has no section {p.section!r}", "section")
    res = Resolution(state, target, model, dice, core_rules=p.core_rules, barrage_damage=p.hull_damage)
    pieces = []
    if p.hull_damage:
        pieces.append(damage_section(res, section, p.hull_damage))
    if p.system:
        if p.system not in _ENTERABLE:
            raise RuleError(f"system must be one of {', '.join(_ENTERABLE)}", "system")
        pieces.append(ship_system_hit(res, p.system))
    target.parts["hg_ship"] = model.model_dump(mode="json")
    who = state.ships[p.source].name if p.source in state.ships else "An attacker"
    text = f"{who} hits {target.name} ({section.name}): " + ("; ".join(pieces) or "no effect") + "."
    return [Event.about(target, "entered_hit", text), *res.events]


mark(
    entered_hit,
    action(
        "traveller.entered_hit",
        EnteredHit,
        "Enter a hit",
        ship="source",
        authorise=_may_enter,
        commutes="damage",
    ),
)


_ENTERABLE = ("m_drive", "j_drive", "power_plant", "sensors", "computer", "command")


class Ruling(BaseModel):
    ship: str
    outcome: Literal["crippled", "destroyed"]


def rule_ship(state: BattleState, p: Ruling, actor: Actor, dice: DiceSource) -> list[Event]:
    """TR-17 Decision: a section at 0 Structure leaves the ship crippled until the referee rules."""
    ship = state.ship(p.ship)
    model = HgShip.model_validate(ship.parts["hg_ship"])
    model.referee_ruling = p.outcome
    ship.crippled = True
    ship.destroyed = p.outcome == "destroyed"
    events = [Event.about(ship, "ruling", f"The referee rules {ship.name} {p.outcome} (TR-17).")]
    if ship.destroyed:
        escaped = abandon_ship(state, ship, model)
        if escaped is not None:
            events.append(escaped)
    ship.parts["hg_ship"] = model.model_dump(mode="json")
    return events


mark(rule_ship, action("traveller.rule_ship", Ruling, "Rule a crippled ship", referee_only=True))
