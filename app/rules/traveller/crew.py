"""Crew Skill, crew strength steps and the frozen watch (TR-23, TR-24, GEN-05).

A capital ship has one Crew Skill for every check; crew hits walk the strength ladder down one
step at a time, and each step carries a skill DM and a fire limit. The frozen watch climbs it
back up, but only six rounds after the thaw begins.
"""

from __future__ import annotations

from app.rules.core import Actor, Event, Roll, ShipRef
from app.rules.dice import DiceSource
from app.rules.ruleset import action, hook, mark
from app.rules.state import BattleState, Ship
from app.rules.traveller import tables as T
from app.rules.traveller.checks import DM
from app.rules.traveller.ship import Combatant, HgShip, load, save
from app.rules.traveller.units import ships_by_id

FROZEN_WATCH_ROUNDS = 6


def crew_dms(unit: Combatant, label: str = "Crew Skill") -> list[DM]:
    """Crew Skill DM then the strength DM (only when it is not +0), as GEN-05 adds them."""
    dms: list[DM] = [(label, T.CREW_SKILL_DM[unit.crew_skill])]
    step = T.crew_step(unit.crew_strength)
    if step.dm:
        dms.append((f"crew {step.name}", step.dm))
    return dms


def computer_dms(unit: Combatant, dice: DiceSource, ship_id: str, rolls: list[Roll]) -> list[DM]:
    """TR-19 computer hits on a capital ship's rolls: first hit −1 DM; second −1d6, rolled afresh
    for each roll (the die joins `rolls`). The third disables it, which the callers refuse on their own."""
    if not isinstance(unit, HgShip) or unit.kind != "capital":
        return []
    if unit.systems.computer == 1:
        return [("computer", -1)]
    if unit.systems.computer == 2:
        roll = dice.roll(1, 6, "computer damage DM", ship=ship_id)
        roll.outcome = f"−{roll.total}"
        rolls.append(roll)
        return [("computer", -roll.total)]
    return []


def can_act(unit: Combatant) -> bool:
    return T.crew_step(unit.crew_strength).dm is not None


def step_down(unit: Combatant) -> tuple[str, str]:
    """One crew hit: one step down the ladder; Dead stays Dead (TR-23)."""
    old = unit.crew_strength
    index = T.CREW_STEP_KEYS.index(old)
    unit.crew_strength = T.CREW_STEP_KEYS[max(index - 1, 0)]
    return T.crew_step(old).name, T.crew_step(unit.crew_strength).name


def step_up(unit: Combatant, steps: int) -> tuple[str, str]:
    old = unit.crew_strength
    index = T.CREW_STEP_KEYS.index(old)
    unit.crew_strength = T.CREW_STEP_KEYS[min(index + steps, len(T.CREW_STEP_KEYS) - 1)]
    return T.crew_step(old).name, T.crew_step(unit.crew_strength).name


def _may_revive(state: BattleState, ship: Ship) -> str | None:
    """The gate's question (TR-24): a frozen watch aboard, not yet thawing, and a crew to thaw it."""
    hg = ship.part("hg_ship")
    if hg is None:
        return f"{ship.name} is not a High Guard ship"
    if (hg.get("frozen_watch_steps") or 0) <= 0:
        return f"{ship.name} carries no frozen watch"
    if hg.get("frozen_watch_ready") is not None:
        return f"{ship.name}'s frozen watch is already thawing or awake"
    if hg.get("crew_strength") == "dead":
        return f"{ship.name}'s crew is dead; nobody can thaw the watch"
    return None


def revive_frozen_watch(state: BattleState, p: ShipRef, actor: Actor, dice: DiceSource) -> list[Event]:
    """TR-24: any time; the thawed crew count from the start of the round six rounds on."""
    # The gate (`_may_revive`) has refused every ship without a frozen watch to thaw and a crew to
    # thaw it, with its reason on "ship"; apply_action never reaches here for one.
    ship = state.ship(p.ship)
    model = load(ship)
    ready = state.clock.turn + FROZEN_WATCH_ROUNDS
    model.frozen_watch_ready = ready
    save(ship, model)
    return [
        Event.about(
            ship,
            "frozen_watch",
            f"{ship.name} begins reviving its frozen watch: it joins the crew in round {ready} (TR-24).",
        )
    ]


mark(
    revive_frozen_watch,
    action(
        "traveller.revive_frozen_watch", ShipRef, "Revive the frozen watch", ship="ship", fits=_may_revive
    ),
)


def frozen_watch_wakes(state: BattleState, dice: DiceSource) -> list[Event]:
    """TR-24: in the turn a revived frozen watch counts, the crew steps back up."""
    events: list[Event] = []
    for ship in ships_by_id(state):
        if "hg_ship" not in ship.parts or ship.destroyed:
            continue
        model = HgShip.model_validate(ship.parts["hg_ship"])
        if model.frozen_watch_ready is None or model.frozen_watch_ready != state.clock.turn:
            continue
        if model.crew_strength == "dead":
            continue
        old, new = step_up(model, model.frozen_watch_steps)
        save(ship, model)
        events.append(
            Event.about(
                ship,
                "frozen_watch",
                f"{ship.name}'s frozen watch takes its posts: crew {old} → {new} (TR-24).",
            )
        )
    return events


mark(frozen_watch_wakes, hook("enter", "turn"))


def abandon_ship(state: BattleState, ship: Ship, model: HgShip) -> Event | None:
    """TR-27 Prepare to Abandon Ship!: destroyed in the round of the order (or of the section's loss
    the referee has just ruled on), its surviving crew reach the lifeboats and escape pods."""
    rounds = {state.clock.turn, model.section_lost_round}
    if model.abandon_round is None or model.abandon_round not in rounds or model.crew_strength == "dead":
        return None
    model.crew_escaped = True
    return Event.about(
        ship,
        "abandon_ship",
        f"{ship.name}'s surviving crew reach the lifeboats and escape pods (Prepare to Abandon Ship!).",
    )
