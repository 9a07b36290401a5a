"""Reactions and the obligations they impose (SH-07 … SH-13, SH-15), and when those obligations end.

A reaction that takes effect supersedes every obligation still standing from earlier reactions,
except the FIVE phase-out duty, which lasts until met (SH-07, SH-12). The seed says newer, higher
reactions "over-ride previous results"; FOUR lifting THREE's target is the case it spells out.
"""

from __future__ import annotations

from app.rules.core import Event, Roll
from app.rules.dice import DiceSource
from app.rules.shadow.track import (
    MOODS,
    PAIN_MAX,
    PHASE_OUT_RANGE,
    SPEED_MAX,
    Obligation,
    ObligationKind,
    PainTrack,
    Reaction,
    When,
    rank,
    reaction_for,
    ship_name,
)
from app.rules.state import BattleState, Ship

SFB_DIRECTIONS = "ABCDEF"  # 1d6 → hex direction for FIVE's random HET (SH-12)
LASTING = frozenset({"phase_out", "plot_phase_out"})
OWED = frozenset({"cutter_attack"})


def end(obligation: Obligation, why: str, turn: int) -> None:
    obligation.expired = True
    obligation.ended = why
    obligation.ended_turn = turn


def lift(track: PainTrack, why: str, turn: int, keep: frozenset[str] = LASTING) -> None:
    """End every standing obligation except the kinds in `keep`."""
    for obligation in track.active():
        if obligation.kind not in keep:
            end(obligation, why, turn)


def _away(direction: str | None) -> str:
    return f" (damage from {direction})" if direction else ""


def _speed_up(track: PainTrack, by: int) -> str:
    if track.speed is None:
        return f"speed +{by} (maximum {SPEED_MAX}; its speed is not recorded)"
    old = track.speed
    track.speed = min(old + by, SPEED_MAX)
    return f"speed {old} → {track.speed}"


def _move_now(
    kind: ObligationKind, level: Reaction, text: str, direction: str | None, when: When
) -> Obligation:
    """A move the reaction forces at once in a direction (ONE's flinch, FOUR's and FIVE's HET): owed
    until the ship's next movement (SH-08, SH-11, SH-12)."""
    return Obligation(
        kind=kind, level=level, text=text, direction=direction, since=when, until="next_movement"
    )


def _evasion(level: Reaction, when: When) -> Obligation:
    return Obligation(
        kind="evasion",
        level=level,
        text="evasion plotting: must increase the range from every enemy ship, using an allotted HET "
        f"only when its movement would not take it further away (until the end of turn {when.turn})",
        since=when,
        until="end_of_turn",
        until_turn=when.turn,
    )


def targeting_text(state: BattleState, obligation: Obligation) -> str:
    """The words of a targeting obligation (SH-09, SH-10, SH-15), from its target and duration."""
    name = ship_name(state, obligation.target)
    if obligation.kind == "cutter_attack":
        return f"must target {name} for one more Shadow Cutter attack"
    if obligation.until == "end_of_turn":
        return f"must target {name} next turn (turn {obligation.until_turn})"
    return f"must target {name} until it is destroyed"


def _target(state: BattleState, track: PainTrack, level: Reaction, when: When) -> Obligation:
    victim = track.most_damage
    if level == "TWO":
        duty = Obligation(
            kind="target",
            level=level,
            text="-",
            target=victim,
            since=when,
            until="end_of_turn",
            until_turn=when.turn + 1,
        )
    else:
        duty = Obligation(
            kind="target", level=level, text="-", target=victim, since=when, until="target_destroyed"
        )
    duty.text = targeting_text(state, duty)
    return duty


def obligations_for(
    state: BattleState, track: PainTrack, level: Reaction, when: When, dice: DiceSource, ship: Ship
) -> tuple[list[Obligation], list[str], list[Roll]]:
    """The new obligations of a reaction, the immediate effects in words, and any roll made (SH-08…SH-13)."""
    direction = track.dominant_direction()
    if level == "ONE":
        flinch = _move_now(
            "flinch",
            level,
            f"must move 1 hex away from the damage{_away(direction)}, keeping facing",
            direction,
            when,
        )
        return [flinch], [], []
    if level in ("TWO", "THREE"):
        return [_target(state, track, level, when)], [], []
    if level == "FOUR":
        het = _move_now(
            "het_away",
            level,
            f"must HET directly away from the damage{_away(direction)} at once; it always succeeds",
            direction,
            when,
        )
        return [het, _evasion(level, when)], [_speed_up(track, 5)], []
    # FIVE is the only level left: ZERO is no reaction and DEATH dies of shock before any reaction
    # is taken (pain._react, pain.check_ship), so take_effect never asks for either.
    assert level == "FIVE", level
    roll = dice.roll(1, 6, "panic HET direction", ship=ship.id)
    heading = SFB_DIRECTIONS[roll.total - 1]
    roll.outcome = f"direction {heading}"
    het = _move_now("het_random", level, f"must HET in direction {heading} (rolled) at once", heading, when)
    no_fire = Obligation(
        kind="no_fire",
        level=level,
        text=f"cannot fire for the rest of turn {when.turn}",
        since=when,
        until="end_of_turn",
        until_turn=when.turn,
    )
    effects = [
        _speed_up(track, 8),
        f"once {PHASE_OUT_RANGE} hexes from the nearest enemy it must try to phase out",
    ]
    return [het, no_fire, _evasion(level, when)], effects, [roll]


def die_of_shock(ship: Ship, track: PainTrack, when: When) -> Event:
    """SH-02, SH-13: pain 16 kills; the carcass drifts at speed 1 at most and stays in play."""
    track.level = PAIN_MAX
    track.reaction = "DEATH"
    track.reaction_since = when
    track.dead = True
    lift(track, "the ship is dead", when.turn, keep=frozenset())
    if track.speed is None or track.speed > 1:
        track.speed = 1
    ship.destroyed = True
    return Event.about(
        ship,
        "pain_death",
        f"{ship.name} dies of shock at pain 16 and is destroyed: it drops to speed 1 at most, its carcass "
        "drifts in its last direction, out of the game for every purpose but left in play to be recovered.",
    )


def take_effect(
    state: BattleState, ship: Ship, track: PainTrack, level: Reaction, when: When, dice: DiceSource
) -> Event:
    """A reaction that took effect: supersede older obligations and impose the new ones."""
    lift(track, f"superseded by {level} ({when.label()})", when.turn)
    new, effects, rolls = obligations_for(state, track, level, when, dice, ship)
    for obligation in new:
        track.add(obligation)
    track.reaction = level
    track.reaction_since = when
    track.last_reaction_turn = when.turn
    duties = "; ".join(o.text for o in new)
    said = "; ".join(part for part in (duties, *effects) if part) or "no obligation"
    return Event.about(
        ship,
        "pain_reaction",
        f"{ship.name} {MOODS[level]} — reaction {level}: {said}.",
        rolls=rolls,
        data={"reaction": level, "most_damage": track.most_damage},
    )


def overrides(track: PainTrack, level: Reaction, turn: int) -> bool:
    """SH-07: higher always overrides; the same level only as the first reaction of a new turn."""
    if rank(level) > rank(track.reaction):
        return True
    return rank(level) == rank(track.reaction) and track.last_reaction_turn != turn


def shift_down(state: BattleState, ship: Ship, track: PainTrack, when: When) -> list[str]:
    """SH-15: after a reduction the reaction falls to the chart level if that is lower, one step at a
    time, each step with its own consequence. Returns the consequences in words."""
    goal = reaction_for(track.level)
    said: list[str] = []
    while rank(track.reaction) > rank(goal):
        leaving = track.reaction
        track.reaction = REACTION_BELOW[leaving]
        said.append(_step_down(state, track, leaving, when))
        track.reaction_since = when
    return said


REACTION_BELOW: dict[Reaction, Reaction] = {
    "ONE": "ZERO",
    "TWO": "ONE",
    "THREE": "TWO",
    "FOUR": "THREE",
    "FIVE": "FOUR",
}


def _step_down(state: BattleState, track: PainTrack, leaving: Reaction, when: When) -> str:
    if leaving == "FIVE":
        lift(track, "reaction fell from FIVE to FOUR", when.turn, keep=frozenset())
        track.add(_evasion("FOUR", when))
        return "FIVE → FOUR: FOUR's restrictions apply (evasion plotting this turn; it may fire)"
    if leaving == "THREE":
        standing = [
            o
            for o in track.active()
            if o.kind == "target" and o.level == "THREE" and o.target and _alive(state, o.target)
        ]
        lift(track, "reaction fell from THREE to TWO", when.turn, keep=frozenset())
        if standing:
            victim = standing[0].target
            track.add(
                Obligation(
                    kind="cutter_attack",
                    level="TWO",
                    text=f"must target {ship_name(state, victim)} for one more Shadow Cutter attack",
                    target=victim,
                    since=when,
                    until="met",
                )
            )
            return f"THREE → TWO: {ship_name(state, victim)} is still alive and is owed one more Shadow Cutter attack"
        return "THREE → TWO: no restrictions"
    # The Shadow Cutter attack owed on leaving THREE survives further steps down: it is owed, not a restriction.
    lift(track, f"reaction fell from {leaving} to {REACTION_BELOW[leaving]}", when.turn, keep=OWED)
    return f"{leaving} → {REACTION_BELOW[leaving]}: no restrictions"


def _alive(state: BattleState, ship_id: str) -> bool:
    ship = state.ships.get(ship_id)
    return ship is not None and not ship.destroyed


def expire(state: BattleState, track: PainTrack, when: When, moment: str) -> list[str]:
    """End obligations whose time is up. `moment`: "movement" (a movement just ended), "turn"
    (a new turn `when.turn` began) or "check" (any other look). Returns what ended, in words."""
    ended: list[str] = []
    for obligation in track.active():
        why = _due(state, obligation, when, moment)
        if why:
            end(obligation, why, when.turn)
            ended.append(obligation.text)
    return ended


def _due(state: BattleState, obligation: Obligation, when: When, moment: str) -> str | None:
    if (
        obligation.target
        and obligation.kind in ("target", "cutter_attack")
        and not _alive(state, obligation.target)
    ):
        return f"{ship_name(state, obligation.target)} is destroyed"
    if obligation.until == "next_movement" and moment == "movement" and obligation.since != when:
        return f"due in the movement after {obligation.since.label()}"
    if (
        obligation.until == "end_of_turn"
        and moment == "turn"
        and obligation.until_turn is not None
        and when.turn > obligation.until_turn
    ):
        return f"end of turn {obligation.until_turn}"
    return None
