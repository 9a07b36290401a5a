"""Individual missile attacks (TR-01, TR-01a, TR-02, TR-25a).

Capital ships fire missiles as barrages, and in barrage combat the gunnery accuracy check is not
used (TR-01a). Starships, small craft and the craft of a flight may still fire missiles one by one:
each missile makes a Gunner accuracy check (GEN-05: 2D + Gunner + range DM + fire control), its
Effect gives the number the missile must then roll on 2D to strike (TR-01), and a dodge the target
made counts against that roll. What a hit does is resolved by the core rules and entered
(GEN-03; `traveller.entered_hit` against a capital ship, TR-14).
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from app.rules.core import Actor, Event, Roll, RuleError
from app.rules.dice import DiceSource
from app.rules.ruleset import action, mark
from app.rules.state import BattleState, Ship
from app.rules.traveller import tables as T
from app.rules.traveller.barrage import check_shooter, small_craft_shooting, take_dodge
from app.rules.traveller.checks import DM, signed, standard_check
from app.rules.traveller.crew import computer_dms, crew_dms
from app.rules.traveller.loop import IN_THE_LOOP
from app.rules.traveller.ranges import attack_band
from app.rules.traveller.ship import HgShip
from app.rules.traveller.units import load_unit, other_ship, save_unit


class MissileAttack(BaseModel):
    ship: str = Field(description="a starship, small craft or flight (not a capital ship, TR-01a)")
    battery: str = Field(description="a missile launcher battery id")
    target: str
    range: str | None = Field(
        default=None, description="range band; from the range board when the pair is on it"
    )
    missiles: int = Field(default=1, ge=1, le=24, description="missiles fired, each its own attack")
    dodge_dm: int = Field(default=0, ge=-3, le=0, description="entered dodge outcome (GEN-03)")


def _fires_single_missiles(state: BattleState, ship: Ship) -> str | None:
    """The gate's question: a capital ship never makes individual missile attacks (TR-01a)."""
    hg = ship.part("hg_ship")
    if hg is not None and hg.get("kind", "capital") == "capital":
        return (
            "a capital ship fires its missiles as a barrage: the accuracy check serves individual"
            " missile attacks only (TR-01a)"
        )
    return None


def missile_attack(state: BattleState, p: MissileAttack, actor: Actor, dice: DiceSource) -> list[Event]:
    """TR-01, TR-01a: a single missile attack by a ship that is not a capital ship, its to-hit number
    from the gunnery accuracy check's Effect."""
    ship = state.ship(p.ship)
    target_ship = other_ship(state, ship, p.target, "choose another ship still in the fight")
    band = attack_band(state, ship, target_ship, p.range)
    shooter = load_unit(state, ship)
    target = load_unit(state, target_ship, "target")
    # The gate (`_fires_single_missiles`) refuses a capital ship (TR-01a).
    assert not (isinstance(shooter, HgShip) and shooter.is_capital)
    battery = shooter.battery(p.battery)
    if battery is None:
        raise RuleError(f"{ship.name} has no battery {p.battery!r}", "battery")
    fire = battery.fire
    if T.WEAPONS[battery.weapon].ammo_table != "missile":
        raise RuleError(f"{battery.label} fires no missiles", "battery")
    check_shooter(state, ship, shooter, battery, band)
    range_dm = fire.range_dm(band, small_craft_shooting(shooter))
    if range_dm is None:
        raise RuleError(f"{fire.name} cannot engage at {T.RANGE_LABELS[band]} range (TR-02)", "range")
    ready = shooter.mounts_of(battery) * fire.launches
    if p.missiles > ready:
        raise RuleError(f"{ship.name} has {ready} {fire.name} launchers ready", "missiles")
    dodge = take_dodge(state, ship, target_ship, target, p.dodge_dm)
    rolls: list[Roll] = []
    lines: list[str] = []
    hits = 0
    for n in range(1, p.missiles + 1):
        dms: list[DM] = crew_dms(shooter, "Gunner") + [("range", range_dm), ("FC", shooter.fire_control)]
        dms += computer_dms(shooter, dice, ship.id, rolls)
        accuracy = standard_check(dice, f"missile {n} accuracy (Gunner)", dms, ship=ship.id)
        rolls.append(accuracy.roll)
        needed = T.missile_to_hit(accuracy.effect)
        strike = dice.roll(2, 6, f"missile {n} to hit", ship=ship.id, modifier=dodge, target=f"{needed}+")
        hit = strike.total >= needed
        strike.outcome = "hit" if hit else "miss"
        rolls.append(strike)
        hits += hit
        dodged = f" dodge {signed(dodge)} = {strike.total}" if dodge else ""
        lines.append(
            f"missile {n}: accuracy {accuracy.sentence()} → to hit {needed}+: 2D {sum(strike.dice)}{dodged}"
            f" → {'hit' if hit else 'miss'}"
        )
    turn = str(state.clock.turn)
    battery.fired[turn] = battery.fired.get(turn, 0) + p.missiles
    shooter.round.actions += 1
    if target_ship.id not in shooter.round.targets:
        shooter.round.targets.append(target_ship.id)
    save_unit(ship, shooter)
    save_unit(target_ship, target)
    after = "resolve the damage by the core rules and enter it (GEN-03)" if hits else "no damage"
    text = (
        f"{ship.name} fires {p.missiles} {fire.name}{'s' if p.missiles != 1 else ''} at {target_ship.name}"
        f" at {T.RANGE_LABELS[band]} (individual attacks, TR-01): "
        + "; ".join(lines)
        + f". {hits} hit{'s' if hits != 1 else ''}: {after}."
    )
    return [Event.about(ship, "missiles", text, rolls=rolls, data={"hits": hits})]


mark(
    missile_attack,
    action(
        "traveller.missile",
        MissileAttack,
        "Fire individual missiles",
        ship="ship",
        fits=_fires_single_missiles,
    ),
    IN_THE_LOOP,
)
