"""Cloaking devices (ST-21 … ST-24).

A ship cloaks or decloaks at the end of a turn (the Adjust Ship Systems segment). While cloaked it
may not fire and its shields absorb nothing (ST-21) unless its data says otherwise (ST-21a), and its
position is known only to its commander and the referee (ST-22): a POSITION_HIDER hides it from
every view, and the generic `ship.move` then logs its moves for the owner only. At decloak only the
current position becomes public. Other ships may try to detect it (ST-23): the attempt is recorded
with a suggested outcome and the referee rules; a detected ship may be fired at with its shields
down (ST-23a). Flash or shredder collateral reveals it without making it a target (ST-24).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from app.rules.core import Actor, Event, RuleError, ShipRef
from app.rules.counters import CounterEvent
from app.rules.dice import DiceSource
from app.rules.figures import Turning
from app.rules.geometry import distance, hex_of
from app.rules.ruleset import Settable, action, hook, mark, part, when
from app.rules.startrek.common import (
    need_part,
    read_part,
    save_part,
    segment,
    ships_with,
    system_destroyed,
    systems_of_kind,
)
from app.rules.state import BattleState, Ship
from app.rules.system import ADJUST, FIRE

PART = "cloak"
REVEALING_EFFECTS = ("flash", "shredder")


class DetectionAttempt(BaseModel):
    """One try at finding the cloaked ship, as the detector declared it (ST-23)."""

    index: int
    turn: int
    detector: str
    ew: int
    range: int
    signature: int | None
    map_range: int | None = Field(
        default=None,
        description="the range between the two ships' hexes as the server knows them (the cloaked ship's"
        " secret one included), when both stand on the map; the suggestion uses it, else `range`",
    )
    suggested: bool | None = Field(description="EW > range + signature, when the signature is set")
    ruling: bool | None = None


def _hide_position_while_cloaked(part: dict[str, Any], ship: Ship) -> dict[str, Any] | None:
    """What other players see of a cloak: whether it is up, and only what they have learned."""
    shown: dict[str, Any] = {
        "cloaked": bool(part.get("cloaked")),
        "detected": bool(part.get("detected")),
        "revealed": bool(part.get("revealed")),
        "may_fire": bool(part.get("may_fire")),
        "keeps_shields": bool(part.get("keeps_shields")),
    }
    if part.get("last_known") is not None:
        shown["last_known"] = part["last_known"]
    return shown


def position_secret(ship: Ship) -> bool:
    """ST-22: a cloaked ship's position is secret unless it was detected or revealed this turn."""
    raw = ship.part(PART)
    if not raw or not raw.get("cloaked"):
        return False
    return not (raw.get("detected") or raw.get("revealed"))


@part(
    PART,
    public_view=_hide_position_while_cloaked,
    hides_position=position_secret,
    # ST-22 … ST-24 on the map: cloaking hides the counter, decloaking shows it where it stands, a
    # detection or a reveal by flash or shredder collateral (a damage entry's) sees it again.
    counter_events=(
        CounterEvent("cloak", "hide", ("startrek.cloak",)),
        CounterEvent("decloak", "show", ("startrek.decloak",)),
        CounterEvent("cloak_detection", "seen", ("startrek.rule_detection",)),
        CounterEvent("cloak_revealed", "seen", ("damage.apply",)),
    ),
    # A cloaked ship found: by a detection (ST-23; the referee's "not found" is owner-only, so only
    # a public one counts) or by collateral damage (ST-24).
    turning=(
        Turning(
            "cloak_detection", "detection", "Detection", lambda e: e.get("visibility", "public") == "public"
        ),
        Turning("cloak_revealed", "detection", "Detection"),
    ),
    settable=(
        Settable("cloaked", "Cloaked"),
        Settable("signature", "Cloak signature"),
        Settable("detected", "Detected this turn"),
    ),
)
class Cloak(BaseModel):
    """A cloaking device: its sheet system, whether it is up, and what others have found out.

    `may_fire` and `keeps_shields` are the ship data's overrides of the cloak conditions (ST-21a).
    `detected` (ST-23) and `revealed` (ST-24) last for the turn they happen in; `last_known` is the
    position others learned then (or at decloak), which stays public."""

    device: str | None = Field(default=None, description="sheet system name; default the cloaking_device")
    cloaked: bool = False
    cloaked_turn: int | None = None
    decloaked_turn: int | None = None
    may_fire: bool = False
    keeps_shields: bool = False
    signature: int | None = Field(default=None, ge=0, le=100, description="set by the referee (ST-23)")
    detected: bool = False
    revealed: bool = False
    last_known: dict[str, Any] | None = None
    attempts: list[DetectionAttempt] = Field(default_factory=list)


def cloak_of(ship: Ship) -> Cloak | None:
    return read_part(ship, PART, Cloak)


def shields_down_by_cloak(state: BattleState, ship: Ship) -> str | None:
    """Why the cloak keeps this ship's shields from absorbing, or None (ST-21, ST-21a, ST-22, ST-23a)."""
    cloak = cloak_of(ship)
    if cloak is None:
        return None
    if cloak.cloaked and cloak.detected:
        return "it is a detected cloaked ship (ST-23a)"
    if cloak.keeps_shields:
        return None
    if cloak.cloaked:
        return "it is cloaked (ST-21)"
    if cloak.decloaked_turn == state.clock.turn:
        return "it decloaked this turn; shields return next turn (ST-22)"
    return None


def fire_blocked_by_cloak(state: BattleState, ship: Ship) -> str | None:
    """Why the cloak stops this ship firing now, or None (ST-21, ST-21a)."""
    cloak = cloak_of(ship)
    if cloak is None or cloak.may_fire:
        return None
    if cloak.cloaked:
        return f"{ship.name} is cloaked and may not fire (ST-21)"
    if cloak.decloaked_turn == state.clock.turn:
        return f"{ship.name} decloaked this turn; its weapons return next turn (ST-22)"
    return None


def device_name(ship: Ship, cloak: Cloak) -> str | None:
    if cloak.device:
        return cloak.device
    devices = systems_of_kind(ship, "cloaking_device")
    return devices[0].name if devices else None


POSITION_ORDER = ("hex", "x", "y", "facing", "heading", "speed")


def _where(position: dict[str, Any] | None) -> str:
    """The position as a sentence, in a fixed key order: PostgreSQL's JSONB does not keep the order
    the player wrote, and the log must read the same on every database."""
    if not position:
        return "an unrecorded position"

    def rank(key: str) -> tuple[int, str]:
        return (POSITION_ORDER.index(key), key) if key in POSITION_ORDER else (len(POSITION_ORDER), key)

    return ", ".join(f"{k} {position[k]}" for k in sorted(position, key=rank))


def _may_cloak(state: BattleState, ship: Ship) -> str | None:
    cloak = read_part(ship, PART, Cloak)
    if cloak is None:
        return f"{ship.name} has no cloaking device"
    if cloak.cloaked:
        return f"{ship.name} is already cloaked"
    if system_destroyed(ship, device_name(ship, cloak)):
        return f"{ship.name}'s cloaking device is destroyed"
    return None


def _may_decloak(state: BattleState, ship: Ship) -> str | None:
    cloak = read_part(ship, PART, Cloak)
    if cloak is None:
        return f"{ship.name} has no cloaking device"
    if not cloak.cloaked:
        return f"{ship.name} is not cloaked"
    return None


def engage(state: BattleState, p: ShipRef, actor: Actor, dice: DiceSource) -> list[Event]:
    """ST-21: at the end of a turn, a ship with an intact device cloaks at once."""
    ship = state.ship(p.ship)
    cloak = need_part(ship, PART, Cloak, "cloaking device")  # not cloaked, its device working: `_may_cloak`
    cloak.cloaked = True
    cloak.cloaked_turn = state.clock.turn
    cloak.detected = False
    cloak.revealed = False
    save_part(ship, PART, cloak)
    conditions = []
    if not cloak.may_fire:
        conditions.append("it may not fire")
    if not cloak.keeps_shields:
        conditions.append("its shields absorb nothing")
    tail = f"; {' and '.join(conditions)} while cloaked" if conditions else ""
    return [Event.about(ship, "cloak", f"{ship.name} cloaks and leaves the board{tail} (ST-21, ST-22).")]


mark(
    engage,
    action("startrek.cloak", ShipRef, "Cloak", ship="ship", fits=_may_cloak),
    when(ADJUST, refusal=segment("Cloaking")),
)


def disengage(state: BattleState, p: ShipRef, actor: Actor, dice: DiceSource) -> list[Event]:
    """ST-22: decloaking at the end of a turn makes only the current position public."""
    ship = state.ship(p.ship)
    cloak = need_part(ship, PART, Cloak, "cloaking device")  # cloaked: `_may_decloak`
    cloak.cloaked = False
    cloak.decloaked_turn = state.clock.turn
    cloak.detected = False
    cloak.revealed = False
    cloak.last_known = ship.position
    save_part(ship, PART, cloak)
    return [
        Event.about(
            ship,
            "decloak",
            f"{ship.name} decloaks at {_where(ship.position)}; its weapons and shields return next turn "
            "(ST-22).",
            data={"position": ship.position},
        )
    ]


mark(
    disengage,
    action("startrek.decloak", ShipRef, "Decloak", ship="ship", fits=_may_decloak),
    when(ADJUST, refusal=segment("Decloaking")),
)


class SetSignature(BaseModel):
    ship: str
    signature: int = Field(ge=0, le=100)


def set_signature(state: BattleState, p: SetSignature, actor: Actor, dice: DiceSource) -> list[Event]:
    """ST-23: the seed's signature table is missing, so the referee sets each ship's value."""
    ship = state.ship(p.ship)
    cloak = need_part(ship, PART, Cloak, "cloaking device")
    cloak.signature = p.signature
    save_part(ship, PART, cloak)
    return [
        Event.about(
            ship,
            "cloak_signature",
            f"The referee sets {ship.name}'s cloak signature to {p.signature} (ST-23).",
            visibility="referee",
        )
    ]


mark(
    set_signature, action("startrek.set_signature", SetSignature, "Set a cloak signature", referee_only=True)
)


class Detect(BaseModel):
    detector: str = Field(description="the ship putting EW on cloak detection")
    target: str = Field(description="the cloaked ship it looks for")
    ew: int = Field(ge=0, le=50, description="EW placed on cloak detection")
    range: int | None = Field(
        default=None,
        ge=0,
        le=200,
        description="range in hexes to the cloaked ship; default: from the map, to its last known position",
    )


def range_from_map(detector: Ship, target: Ship, cloak: Cloak) -> int:
    """ST-23's range from the map: the detector's hex to the target's last known position (where it
    last decloaked, was detected or revealed): never its secret position. Refused, naming `range`,
    where the map does not answer it."""
    here, there = hex_of(detector.position), hex_of(cloak.last_known)
    if here is None:
        raise RuleError(f"range: {detector.name} has no hex on the map; enter the range", "range")
    if there is None:
        raise RuleError(f"range: {target.name} has no last known hex on the map; enter the range", "range")
    return distance(here, there)


def true_range(detector: Ship, target: Ship) -> int | None:
    """The range the map knows between the detector and where the cloaked ship really is (its secret
    hex, ST-22), or None when either has no hex. Only the referee's suggestion reads it: the detector
    never learns it."""
    here, there = hex_of(detector.position), hex_of(target.position)
    if here is None or there is None:
        return None
    return distance(here, there)


def suggestion(ew: int, rng: int, signature: int | None) -> bool | None:
    """The suggested outcome: detected when EW > range + signature (how one implementation reads mines)."""
    if signature is None:
        return None
    return ew > rng + signature


def _may_search(state: BattleState, detector: Ship) -> str | None:
    """The gate's question (ST-23): another ship is cloaked to look for, and this one has not searched
    this turn (one attempt per detector per turn)."""
    cloaks = [(ship, read_part(ship, PART, Cloak)) for ship in state.ships.values() if ship.id != detector.id]
    if not any(c is not None and c.cloaked for _, c in cloaks):
        return "no other ship is cloaked to look for (ST-23)"
    for _, other in cloaks + [(detector, read_part(detector, PART, Cloak))]:
        if other and any(a.detector == detector.id and a.turn == state.clock.turn for a in other.attempts):
            return f"{detector.name} has already searched for a cloaked ship this turn (ST-23)"
    return None


def detect(state: BattleState, p: Detect, actor: Actor, dice: DiceSource) -> list[Event]:
    """ST-23: record the attempt; the referee rules the outcome (GEN-03) with the suggestion, which
    only the referee reads: the signature is the referee's, and EW and range are the detector's own
    inputs, so a verdict shown to the detector would let tries narrow it down. One attempt per
    detector per turn."""
    detector = state.ship(p.detector, "detector")
    target = state.ship(p.target, "target")
    cloak = need_part(target, PART, Cloak, "cloaking device", "target")
    if not cloak.cloaked:
        raise RuleError(f"{target.name} is not cloaked", "target")
    if detector.id == target.id:
        raise RuleError("a ship cannot look for itself", "target")
    rng, note = p.range, ""
    if rng is None:
        rng, note = range_from_map(detector, target, cloak), " (to its last known position, from the map)"
    # The suggestion is the referee's: where both ships stand on the map it uses the range between
    # them as they really are, not the range the detector gave (typed, or to a last known hex).
    measured = true_range(detector, target)
    hint = suggestion(p.ew, rng if measured is None else measured, cloak.signature)
    attempt = DetectionAttempt(
        index=len(cloak.attempts),
        turn=state.clock.turn,
        detector=detector.id,
        ew=p.ew,
        range=rng,
        signature=cloak.signature,
        map_range=measured,
        suggested=hint,
    )
    cloak.attempts.append(attempt)
    save_part(target, PART, cloak)
    if hint is None:
        advice = "the referee has not set its signature yet"
    else:
        verdict = "detected" if hint else "not detected"
        if measured is None:
            basis = f"range {rng}" + (" as entered" if p.range is not None else note)
            basis += " (the map does not place both ships)"
        else:
            basis = f"range {measured} from the map" + (
                "" if measured == rng else f" (the detector gave {rng})"
            )
        advice = f"suggested: EW {p.ew} vs {basis} + signature {cloak.signature} → {verdict}"
    return [
        Event.about(
            detector,
            "cloak_detection_attempt",
            f"{detector.name} puts {p.ew} EW on detecting {target.name} at range {rng}{note}. "
            "The referee rules (ST-23).",
            visibility="owner",
            hidden_text=f"{detector.name} searches for a cloaked ship.",
            data={"target": target.id, "attempt": attempt.index},
        ),
        Event.about(
            target,
            "cloak_detection_suggestion",
            f"For the referee — attempt {attempt.index} by {detector.name}: {advice} (ST-23).",
            visibility="referee",
            data={"target": target.id, "attempt": attempt.index, "suggested": hint},
        ),
    ]


mark(
    detect,
    action(
        "startrek.detect_cloak", Detect, "Try to detect a cloaked ship", ship="detector", fits=_may_search
    ),
    when(FIRE, refusal=segment("Detecting a cloaked ship")),
)


class RuleDetection(BaseModel):
    target: str
    attempt: int = Field(ge=0, description="index of the detection attempt")
    detected: bool


def rule_detection(state: BattleState, p: RuleDetection, actor: Actor, dice: DiceSource) -> list[Event]:
    """ST-23/23a: the referee's ruling; a detected ship's position is public and it may be fired at."""
    target = state.ship(p.target, "target")
    cloak = need_part(target, PART, Cloak, "cloaking device", "target")
    if p.attempt >= len(cloak.attempts):
        raise RuleError(f"no detection attempt {p.attempt} on {target.name}", "attempt")
    attempt = cloak.attempts[p.attempt]
    if attempt.ruling is not None:
        raise RuleError("that attempt has already been ruled", "attempt")
    attempt.ruling = p.detected
    detector = state.ships.get(attempt.detector)
    who = detector.name if detector else attempt.detector
    if not p.detected:
        save_part(target, PART, cloak)
        return [
            Event(
                kind="cloak_detection",
                ship=detector.id if detector else None,
                visibility="owner",
                text=f"{who} does not find {target.name} (referee's ruling, ST-23).",
                hidden_text=f"{who} finds nothing.",
            )
        ]
    if not cloak.cloaked:
        raise RuleError(f"{target.name} is no longer cloaked", "target")
    cloak.detected = True
    cloak.last_known = target.position
    save_part(target, PART, cloak)
    return [
        Event.about(
            target,
            "cloak_detection",
            f"{who} detects the cloaked {target.name} at {_where(target.position)}: it may be fired at "
            "this turn with its shields down; fire outcomes are entered (ST-23, ST-23a).",
        )
    ]


mark(
    rule_detection,
    action("startrek.rule_detection", RuleDetection, "Rule a detection attempt", referee_only=True),
)


def reveal_by_collateral(state: BattleState, ship: Ship, effect: str) -> Event | None:
    """ST-24: flash or shredder collateral reveals a cloaked ship's position (it was not a target)."""
    cloak = cloak_of(ship)
    if cloak is None or not cloak.cloaked or cloak.revealed:
        return None
    cloak.revealed = True
    cloak.last_known = ship.position
    save_part(ship, PART, cloak)
    return Event.about(
        ship,
        "cloak_revealed",
        f"Collateral {effect} damage reveals the cloaked {ship.name} at {_where(ship.position)}; "
        "it could not be the target of that fire (ST-24).",
    )


def forget_sightings(state: BattleState, dice: DiceSource) -> list[Event]:
    """A detection or reveal opens one turn; next turn the ship is hidden again (its last known
    position stays public)."""
    events: list[Event] = []
    for ship, cloak in ships_with(state, PART, Cloak):
        if not (cloak.detected or cloak.revealed):
            continue
        cloak.detected = False
        cloak.revealed = False
        save_part(ship, PART, cloak)
        if cloak.cloaked:
            events.append(
                Event.about(ship, "cloak_hidden", f"The cloaked {ship.name} is lost from sight again.")
            )
    return events


mark(forget_sightings, hook("enter", "turn"))
