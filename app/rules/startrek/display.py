"""What the Star Trek part templates draw that the rules derive (ST-03, ST-05 … ST-25): each
deflector's value after arc extensions and what an extension costs (ST-14), whether the shields
work (ST-11) and which transfer the segment allows (ST-08, ST-15a), the power budget (ST-07),
thrust costs and initiative after lost thrusters (ST-03), the nacelles and warp delay (ST-17 …
ST-19), a cloaked ship's last known position (ST-22) and the torpedo volley penalties (ST-25).
Pure: no I/O; each function reads the part as this viewer sees it."""

from __future__ import annotations

from typing import Any

from app.rules.counters import Counter, RingBand
from app.rules.figures import Figures, Gauge
from app.rules.startrek import cloak, impulse, power, shields, torpedoes, warp
from app.rules.startrek.common import sheet_system, system_destroyed, systems_of_kind
from app.rules.state import BattleState, Ship
from app.rules.system import ALLOCATION


def signed(n: int) -> str:
    """±0, −2 (a real minus sign)."""
    return "±0" if n == 0 else f"{n:+d}".replace("-", "−")


def shield_figures(part: dict[str, Any]) -> Figures:
    """The report's shield charts: each projection's strength against its rating (ST-05, ST-11, ST-12)."""
    return Figures(
        gauges=tuple(
            Gauge(p["name"], p.get("current") or 0, p["rating"], bool(p.get("collapsed")))
            for p in part.get("projections", [])
        )
    )


def shield_counter(part: dict[str, Any]) -> Counter:
    """On the map: each shield projection with degrees as a band of the ring round the counter (ST-05)."""
    ring = []
    for p in part.get("projections") or []:
        degrees = p.get("degrees")
        if not degrees:
            continue
        rating = p.get("rating") or 0
        current = p.get("current") if p.get("current") is not None else rating
        ring.append(
            RingBand(
                p.get("name"), float(degrees[0]), float(degrees[1]), current, rating, bool(p.get("collapsed"))
            )
        )
    return Counter(ring=tuple(ring))


def cloak_counter(part: dict[str, Any]) -> Counter:
    """On the map: where others last saw a cloaked ship (ST-22), its ghost's place."""
    return Counter(last_known=part.get("last_known"))


def shield_values(part: dict[str, Any], ship: Ship, state: BattleState) -> dict[str, Any]:
    sh = shields.Shields.model_validate(part)
    step = shields.steps_per_projection(sh)
    deflectors = [
        {
            "name": d.name,
            "value": shields.current_value(sh, d),
            "power": shields.power_requirement(sh, d),
            "covers": d.covers,
            "extended_to": d.extended_to,
            "shut_down": d.shut_down,
        }
        for d in sh.deflectors
    ]
    return {
        "deflectors": deflectors,
        "feeds": {
            p.name: [f"+{d['value']}" for d in deflectors if p.name in d["covers"]] for p in sh.projections
        },
        "working": not shields.generator_down(ship, sh),
        "ring": len(sh.projections) > 1,
        "extension": {
            "degrees": 90 * step,
            "power": shields.EXTENSION_POWER_FACTOR**step,
            "regeneration": step,
        },
        # ST-15a: in the allocation segment a transfer may only shore up a projection that collapsed.
        "shore_up": state.game.in_moment(state, ALLOCATION),
        "fallen": [p.name for p in sh.projections if p.down_at_open],
        "extended": [d.name for d in sh.deflectors if d.extended_to],
    }


def power_values(part: dict[str, Any], ship: Ship, state: BattleState) -> dict[str, Any]:
    pw = power.Power.model_validate(part)
    return {
        "systems": sum(c.power for c in pw.consumers if not c.off),
        "deflectors": power.deflector_need(ship),
        "bought": sum(s.power for s in pw.spent),
        "left": power.available(ship, pw),
    }


def impulse_values(part: dict[str, Any], ship: Ship, state: BattleState) -> dict[str, Any]:
    im = impulse.Impulse.model_validate({k: v for k, v in part.items() if v is not None})
    return {
        "accel_decel": impulse.thrust_cost(im, "accel"),
        "pivot": impulse.thrust_cost(im, "pivot"),
        "roll": impulse.thrust_cost(im, "roll"),
        "doubled": im.factor > 1,
        "initiative": im.effective_initiative,
        "lost_initiative": signed(impulse.LOST_INITIATIVE),
        "thrusters": [
            {
                "name": t.name,
                "left": t.boxes - t.damage,
                "boxes": t.boxes,
                "lost": system_destroyed(ship, t.name),
            }
            for t in systems_of_kind(ship, impulse.THRUSTER)
        ],
    }


def warp_values(part: dict[str, Any], ship: Ship, state: BattleState) -> dict[str, Any]:
    wp = warp.Warp.model_validate(part)
    working = warp.working_nacelles(ship, wp)
    nacelles = []
    for name in warp.nacelle_names(ship, wp):
        s = sheet_system(ship, name)
        if s is None:
            continue
        nacelles.append(
            {
                "name": s.name,
                "boxes": s.boxes,
                "damage": s.damage,
                "chance": min(s.damage, 100),  # ST-18: destroyed boxes as a percentage
                "dead": system_destroyed(ship, s.name),
                "off": s.name in wp.shut_down,
            }
        )
    return {
        "full_delay": warp.full_delay(wp),
        "nacelles": nacelles,
        "working": len(working),
        "may_shut_down": warp.shutdown_refusal(state, ship) is None,
        "may_declare": warp.declare_refusal(state, ship) is None,
        "declared": wp.declared_turn == state.clock.turn,
    }


def cloak_values(part: dict[str, Any], ship: Ship, state: BattleState) -> dict[str, Any]:
    known = part.get("last_known") or {}

    def rank(key: str) -> tuple[int, str]:
        order = cloak.POSITION_ORDER
        return (order.index(key), key) if key in order else (len(order), key)

    return {
        "last_known": [(k, known[k]) for k in sorted(known, key=rank)],
        "toggle": "startrek.decloak" if part.get("cloaked") else "startrek.cloak",
        "pending": [a for a in part.get("attempts") or [] if a.get("ruling") is None],
    }


def first_one_values(part: dict[str, Any], ship: Ship, state: BattleState) -> dict[str, Any]:
    """What the First One trait (ST-16) does in this battle: it acts only where the Star Trek rules
    play and only on deflector shields, so a Shadow's card in an SFB battle says it does nothing."""
    plays = any(r.key == "startrek" for r in state.game.rulesets)
    shielded = [
        other.name for other in state.ships.values() if other.id != ship.id and other.part(shields.PART)
    ]
    return {"plays": plays, "shielded": shielded, "system": state.game.system.name}


def photon_values(part: dict[str, Any], ship: Ship, state: BattleState) -> dict[str, Any]:
    most = max(
        (launcher.get("capacity", torpedoes.CAPACITY) for launcher in part.get("launchers", [])), default=0
    )
    volleys = [(n, signed(torpedoes.to_hit_modifier(n))) for n in range(1, most + 1)]
    return {"volleys": volleys, "targets": torpedoes.targets(state, ship)}
