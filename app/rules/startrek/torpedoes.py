"""Advanced photon torpedo launchers (ST-25): up to three torpedoes stored; firing N together gives
each torpedo −(N−1) to hit. The to-hit rolls and damage are Babylon 5 Wars rules the seed does not
give, so they are entered (GEN-03); this records loads, volleys and the penalty."""

from __future__ import annotations

from pydantic import BaseModel, Field, model_validator

from app.rules.core import Actor, Event, RuleError
from app.rules.dice import DiceSource
from app.rules.ruleset import Settable, action, mark, part, when
from app.rules.startrek.common import equipped, read_part, save_part, segment, system_destroyed
from app.rules.startrek.fire import fire_blocked, may_be_targeted
from app.rules.state import BattleState, Ship
from app.rules.system import FIRE

PART = "photon_launcher"
CAPACITY = 3


class Launcher(BaseModel):
    name: str = Field(min_length=1, max_length=60)
    system: str | None = Field(default=None, description="sheet system; default its name")
    capacity: int = Field(default=CAPACITY, ge=1, le=CAPACITY)
    loaded: int = Field(default=0, ge=0)

    @model_validator(mode="after")
    def _fits(self) -> Launcher:
        if self.loaded > self.capacity:
            raise ValueError(f"launcher {self.name!r} holds at most {self.capacity}")
        return self


@part(PART, settable=(Settable("launchers.*.loaded", "{name} torpedoes loaded", upto="capacity"),))
class PhotonLaunchers(BaseModel):
    launchers: list[Launcher] = Field(min_length=1)

    def launcher(self, name: str) -> Launcher:
        for launcher in self.launchers:
            if launcher.name.lower() == name.lower():
                return launcher
        known = ", ".join(x.name for x in self.launchers)
        raise RuleError(f"no launcher {name!r} (launchers: {known})", "launcher")


def to_hit_modifier(count: int) -> int:
    """ST-25: each torpedo of an N-torpedo volley is at −(N−1)."""
    return -(count - 1)


def _parts(ship: Ship) -> PhotonLaunchers:
    launchers = read_part(ship, PART, PhotonLaunchers)
    assert launchers is not None  # both actions are gated on the part (`fits=LAUNCHER`)
    return launchers


def _working(ship: Ship, launchers: PhotonLaunchers, name: str) -> Launcher:
    """The named launcher, refused while its sheet system is destroyed: a destroyed launcher neither
    loads nor fires (ST-25)."""
    launcher = launchers.launcher(name)
    if system_destroyed(ship, launcher.system or launcher.name):
        raise RuleError(f"{launcher.name} is destroyed", "launcher")
    return launcher


LAUNCHER = equipped(PART, "advanced photon launcher")


class Load(BaseModel):
    ship: str
    launcher: str
    count: int = Field(default=1, ge=1, le=CAPACITY)


def load(state: BattleState, p: Load, actor: Actor, dice: DiceSource) -> list[Event]:
    """ST-25: torpedoes go into a launcher that is not destroyed, up to what it holds."""
    ship = state.ship(p.ship)
    launchers = _parts(ship)
    launcher = _working(ship, launchers, p.launcher)
    if launcher.loaded + p.count > launcher.capacity:
        raise RuleError(
            f"{launcher.name} holds {launcher.loaded} of {launcher.capacity}: room for {launcher.capacity - launcher.loaded}"
            " (ST-25)",
            "count",
        )
    launcher.loaded += p.count
    save_part(ship, PART, launchers)
    return [
        Event.about(
            ship,
            "torpedo_load",
            f"{ship.name} loads {p.count} photon torpedo{'es' if p.count > 1 else ''} into {launcher.name}: "
            f"{launcher.loaded} of {launcher.capacity} ready.",
        )
    ]


mark(load, action("startrek.load_torpedoes", Load, "Load photon torpedoes", ship="ship", fits=LAUNCHER))


def targets(state: BattleState, ship: Ship) -> list[tuple[str, str]]:
    """The ships the card offers as a volley's target (id, name): those fighting against this one
    and still in the battle, less a cloaked ship not detected (ST-22, ST-23) — never the firing
    commander's own ships or side."""
    return [
        (other.id, other.name)
        for other in state.ships.values()
        if ship.opposes(other) and state.game.gone(other) is None and may_be_targeted(other) is None
    ]


class Fire(BaseModel):
    ship: str
    launcher: str
    count: int = Field(ge=1, le=CAPACITY)
    target: str | None = None


def fire(state: BattleState, p: Fire, actor: Actor, dice: DiceSource) -> list[Event]:
    """ST-25: a volley of N; the to-hit penalty is recorded for the entered rolls."""
    ship = state.ship(p.ship)
    blocked = fire_blocked(state, ship)
    if blocked:
        raise RuleError(blocked, "ship")
    launchers = _parts(ship)
    launcher = _working(ship, launchers, p.launcher)
    if p.count > launcher.loaded:
        raise RuleError(f"{launcher.name} has {launcher.loaded} loaded", "count")
    at = ""
    if p.target:
        target = state.ship(p.target, "target")
        why_not = may_be_targeted(target)
        if why_not:
            raise RuleError(why_not, "target")
        at = f" at {target.name}"
    launcher.loaded -= p.count
    save_part(ship, PART, launchers)
    modifier = to_hit_modifier(p.count)
    noun = "torpedo" if p.count == 1 else "torpedoes"
    penalty = "no penalty" if modifier == 0 else f"each −{-modifier} to hit"
    return [
        Event.about(
            ship,
            "torpedo_fire",
            f"{ship.name} fires {p.count} photon {noun} from {launcher.name}{at}: {penalty} (ST-25); "
            f"{launcher.loaded} left loaded.",
            data={"count": p.count, "to_hit_modifier": modifier, "target": p.target},
        )
    ]


mark(
    fire,
    action("startrek.fire_torpedoes", Fire, "Fire photon torpedoes", ship="ship", fits=LAUNCHER),
    when(FIRE, refusal=segment("Firing")),
)
