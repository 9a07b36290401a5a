"""What the Traveller part templates draw that the rules derive (TR-02, TR-17 … TR-27): the orders
catalogue and which orders this unit may give (TR-26b), the crew ladder with each step's DM and
fire limit (TR-23), the Section Hit column each section's next roll reads (TR-18), each system's
hits with what they cost now (TR-19), what may be repaired (TR-22), the range bands each form may
name and the range board's band to each target (TR-02), the board's chart, and the ships a form may
name. Pure: no I/O."""

from __future__ import annotations

from typing import Any

from app.rules.figures import Figures, Section
from app.rules.state import BattleState, Ship
from app.rules.system import FIRE
from app.rules.traveller import repairs
from app.rules.traveller import tables as T
from app.rules.traveller.barrage import fire_limits
from app.rules.traveller.flights import Flight
from app.rules.traveller.ranges import entry
from app.rules.traveller.ship import Combatant, HgShip
from app.rules.traveller.units import orders_on


def hg_figures(part: dict[str, Any]) -> Figures:
    """The report's section charts (Hull and Structure left, TR-17) and what damage can still take
    off the ship: its sections' Hull and Structure."""
    sections = part.get("sections", [])
    return Figures(
        points=sum((s.get("hull") or 0) + (s.get("structure") or 0) for s in sections),
        sections=tuple(
            Section(
                s["name"],
                s.get("hull") or 0,
                s["hull_max"],
                s.get("structure") or 0,
                s["structure_max"],
                bool(s.get("destroyed")),
            )
            for s in sections
        ),
    )


# Whole-ship systems by their slot kind, as the sheet names them ("command" hits take the bridge).
SYSTEM_LABELS: dict[str, str] = {
    "m_drive": "M-Drive",
    "j_drive": "J-Drive",
    "power_plant": "Power plant",
    "sensors": "Sensors",
    "computer": "Computer",
    "command": "Bridge",
}
MISSILE_WEAPONS = ("missile_turret", "missile_bay_50", "missile_bay_100")


def signed(dm: int) -> str:
    """A DM as the sheet prints it: +0, −2 (a real minus sign)."""
    return f"{dm:+d}".replace("-", "−")


def crew_ladder(strength: str) -> list[dict[str, Any]]:
    """TR-23: the steps from Full (or the unit's step, when above Full) down to Dead, top first."""
    keys = T.CREW_STEP_KEYS
    top = max(keys.index(strength), keys.index("full"))
    ladder = []
    for step in reversed(T.CREW_STEPS[: top + 1]):
        label = "cannot act" if step.dm is None else signed(step.dm)
        if step.fire_every and step.fire_every > 1:
            label += f", fire 1/{step.fire_every}"
        ladder.append(
            {"key": step.key, "name": step.name, "label": f"{step.name} {label}", "now": step.key == strength}
        )
    return ladder


def _pips(label: str, hits: int, most: int, penalty: str) -> dict[str, Any]:
    return {"label": label, "hits": hits, "most": most, "penalty": penalty if hits else ""}


def systems(model: HgShip) -> list[dict[str, Any]]:
    """TR-19: each system's hits, how many it takes, and what they cost now."""
    s = model.systems
    rows = [
        _pips(f"{b.label} ×{b.mounts}", b.hits, 3, ["", "−1d6", "−(1d6+1)", "cannot fire"][b.hits])
        for b in model.batteries
    ]
    if model.spinal:
        name = model.spinal.name + (f" ({model.spinal.rating})" if model.spinal.rating else "")
        rows.append(_pips(name, model.spinal.hits, 2, ["", "−2", "disabled"][model.spinal.hits]))
    rows += [
        _pips(f"{sc.label} ×{sc.count}", sc.hits, sc.count, f"−{2 * sc.hits} protection")
        for sc in model.screens
    ]
    rows += [
        _pips("M-Drive", s.m_drive, max(s.m_drive, model.thrust_max or 1), f"Thrust {model.thrust}"),
        _pips("J-Drive", s.j_drive, 2, ["", f"{signed(s.jump_dm)} to jumps", "disabled"][s.j_drive]),
        _pips("Power plant", s.power_plant, 3, ["", "Power −1", "Power −3", "ship disabled"][s.power_plant]),
        _pips("Sensors", s.sensors, 2, ["", f"{signed(s.sensors_dm)} DM", "disabled"][s.sensors]),
        _pips(
            "Computer",
            s.computer,
            3,
            ["", "−1 to all rolls", "−1d6 to all rolls", "no jump, fire ≤ Close"][s.computer],
        ),
        _pips(
            "Bridge",
            s.bridge,
            2,
            ["", f"no manoeuvre round {s.bridge_round}", "destroyed: initiative halved"][s.bridge],
        ),
    ]
    return rows


def repairable(model: HgShip) -> list[tuple[str, str]]:
    """TR-22: every damaged system a repair may name (whole-ship systems, spinal, batteries, screens)."""
    found = [(k, SYSTEM_LABELS[k]) for k in repairs.SHIP_SYSTEMS if getattr(model.systems, k)]
    if model.spinal and model.spinal.hits:
        found.append(("spinal", model.spinal.name))
    found += [(b.id, b.label) for b in model.batteries if b.hits]
    found += [(sc.id, sc.label) for sc in model.screens if sc.hits]
    return found


NOT_REPAIRED = "Hull, Structure, armour and the bridge are not repaired during a battle (TR-22)"


def repair_options(state: BattleState, model: HgShip) -> dict[str, Any]:
    """TR-22 on the sheet without dead ends: the (section, system) attempts the rules would take
    now, and for each damaged system that cannot be tried, why (as the rules would refuse it)."""
    attempts: list[dict[str, str]] = []
    blocked: list[str] = []
    for key, label in repairable(model):
        why: list[str] = []
        for section in model.sections:
            problem = repairs.refusal(state, model, "", section.name, key)
            if problem is None:
                attempts.append(
                    {"section": section.name, "system": key, "label": f"{label} in {section.name}"}
                )
            elif repairs.in_section(section, key) and not section.destroyed:
                why.append(problem[0])
        if not any(a["system"] == key for a in attempts):
            blocked.append(f"{label}: {'; '.join(why) or 'it sits in no working section'}")
    worn = any(
        s.hull < s.hull_max or s.structure < s.structure_max or s.armour < s.armour_max  # type: ignore[operator]  # the validator fills them
        for s in model.sections
    )
    if worn or model.systems.bridge:
        blocked.append(NOT_REPAIRED)
    return {"attempts": attempts, "blocked": blocked}


def unmet(unit: Combatant, order: T.Order) -> str | None:
    """TR-26b: why this unit may not give this order at all (Crew Skill N+, a spinal mount, a small
    craft flight only); the order's target and the round's budget are checked when it is given."""
    if unit.crew_skill < order.crew_skill:
        return f"needs Crew Skill {order.crew_skill}+"
    if order.needs_spinal and not (isinstance(unit, HgShip) and unit.spinal is not None):
        return "needs a spinal mount"
    if order.flight_only and not isinstance(unit, Flight):
        return "a small craft flight only"
    return None


def _order_forms(unit: Combatant, damaged: list[tuple[str, str]]) -> list[dict[str, Any]]:
    """TR-26b: the orders this unit may give, each with how the form asks for it."""
    forms = []
    for key, order in T.ORDERS.items():
        if unmet(unit, order):
            continue
        if key == "one_more_shot":
            if damaged:
                forms.append({"key": key, "order": order, "ask": "damaged"})
        elif order.needs_target:
            forms.append({"key": key, "order": order, "ask": "target"})
        else:
            forms.append({"key": key, "order": order, "ask": "repeat" if order.repeatable else "tick"})
    return forms


def _name(state: BattleState, sid: str | None) -> str | None:
    if sid is None:
        return None
    ship = state.ships.get(sid)
    return ship.name if ship else sid


def unit(part: dict[str, Any], ship: Ship, state: BattleState) -> dict[str, Any]:
    """Display values shared by capital ships and flights (from the part as this viewer sees it)."""
    model: Combatant = HgShip.model_validate(part) if "sections" in part else Flight.model_validate(part)
    rnd = model.round
    others = [s for sid, s in sorted(state.ships.items()) if sid != ship.id and not s.destroyed]
    damaged = [(b.id, b.label) for b in model.batteries if b.hits]
    if isinstance(model, HgShip) and model.spinal and model.spinal.hits:
        damaged.append(("spinal", model.spinal.name))
    orders = _order_forms(model, damaged)
    shown: dict[str, Any] = {
        "catalogue": T.ORDERS,
        "orders_on": orders_on(state),
        "skill_name": T.CREW_SKILL_NAMES[model.crew_skill],
        "crew": crew_ladder(model.crew_strength),
        "initiative": model.current_initiative(),
        "orders": [
            {**o.model_dump(), "name": o.spec.name, "target_name": _name(state, o.target)} for o in rnd.orders
        ],
        "drafts": [
            {**o.model_dump(), "name": o.spec.name, "target_name": _name(state, o.target)} for o in rnd.drafts
        ],
        "order_forms": orders,
        "emergency_orders": [f for f in orders if f["order"].emergency],
        "damaged": damaged,
        "evasive": rnd.has("evasive_action"),
        "prepare_jump": rnd.has("prepare_jump"),
        # A hit scored at the table by the core rules is entered while ships fire (TR-14).
        "scoring": state.game.in_moment(state, FIRE),
        "targets": [{"id": s.id, "name": s.name} for s in others],
        # The range board's band to each other ship (TR-02): the fire forms offer it, nothing typed.
        "board": {s.id: placed.band for s in others if (placed := entry(state, ship.id, s.id))},
        "board_labels": {
            s.id: T.RANGE_LABELS[placed.band] for s in others if (placed := entry(state, ship.id, s.id))
        },
        "bands": [(b, T.RANGE_LABELS[b]) for b in T.RANGE_BANDS],
        "missile_bands": [
            (b, T.RANGE_LABELS[b]) for b in T.RANGE_BANDS if T.range_dm("missile", b) is not None
        ],
        "firing": [b for b in model.batteries if b.hits < 3 or b.one_more_shot == state.clock.turn],
    }
    # What each weapon may fire this round and why no more (crew, power, configuration, Maximum
    # Speed): the barrage form says it before a refusal does (TR-05, TR-23, TR-25).
    shown["caps"] = {}
    for b in shown["firing"]:
        allowed, total, why = fire_limits(state, model, b)
        shown["caps"][b.id] = {"allowed": allowed, "total": total, "why": "; ".join(why)}
    if isinstance(model, Flight):
        shown["left"] = model.remaining
        shown["craft_points"] = model.craft_points
        shown["carriers"] = [
            {"id": s.id, "name": s.name} for s in others if s.side == ship.side and "hg_ship" in s.parts
        ]
        return shown
    turn = state.clock.turn
    shown.update(
        columns={s.slug: s.column.title() for s in model.sections},
        crit={
            s.slug: bool(s.fire or s.offline_round == turn or s.breach_round == turn) for s in model.sections
        },
        systems=systems(model),
        repairable=repairable(model),
        repairs=repair_options(state, model),
        bridge_grounded=model.systems.bridge_round == turn,
        thaw=bool(
            model.frozen_watch_steps and model.frozen_watch_ready is None and model.crew_strength != "dead"
        ),
        spinal_targets=[{"id": s.id, "name": s.name} for s in others if "hg_ship" in s.parts],
        spinal_bands=[(b, T.RANGE_LABELS[b]) for b in T.RANGE_BANDS if T.spinal_range_dm(b) is not None],
        missiles=[b for b in model.batteries if b.weapon in MISSILE_WEAPONS]
        if model.kind != "capital"
        else [],
        capitals=[
            {"id": s.id, "name": s.name}
            for s in others
            if (s.parts.get("hg_ship") or {}).get("kind") == "capital"
        ],
        hit_systems=list(SYSTEM_LABELS.items()),
        referee_sheet=_first_unit(state) == ship.id,
        unrolled=any(
            (s.parts.get(name) or {}).get("initiative_base") is None
            for s in state.ships.values()
            for name in ("hg_ship", "flight")
            if name in s.parts
        ),
        sides=sorted(
            {s.side for s in state.ships.values() if s.side and ("hg_ship" in s.parts or "flight" in s.parts)}
        ),
    )
    return shown


def panel(state: BattleState) -> dict[str, Any]:
    """The battle-wide controls' values: whether initiative is still to roll, orders in use, sides."""
    units = [s for s in state.ships.values() if {"hg_ship", "flight"} & set(s.parts)]
    return {
        "unrolled": any(
            (s.parts.get(name) or {}).get("initiative_base") is None
            for s in units
            for name in ("hg_ship", "flight")
            if name in s.parts
        ),
        "orders_on": orders_on(state),
        "sides": sorted({s.side for s in units if s.side}),
    }


def _first_unit(state: BattleState) -> str | None:
    """Battle-wide referee controls sit on the first Traveller sheet (by ship id)."""
    return next(
        (sid for sid in sorted(state.ships) if {"hg_ship", "flight"} & set(state.ships[sid].parts)), None
    )
