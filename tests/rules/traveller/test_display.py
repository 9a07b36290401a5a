"""The High Guard sheets draw the rules' own tables (TR-18, TR-19, TR-23, TR-26b): traveller/display.py
reads tables.py, ship.py and orders.py, and the templates print what it gives."""

from __future__ import annotations

import json

import pytest

from app.rules.core import RuleError
from app.rules.traveller import display, orders
from app.rules.traveller import tables as T
from app.rules.traveller.flights import Flight
from app.rules.traveller.ship import HgShip, OrderChoice
from app.rules.views import Viewer
from tests.helpers import part_context
from tests.rules.traveller.helpers import advance_to, battle, capital
from tests.rules.traveller.test_templates_and_samples import KESTREL, LIBRARY, STRANGER, render, two_ships

OWNER = Viewer("p-kestrel", "player", frozenset({"dauntless"}))


def shown(state, ship_id: str = "kestrel", part: str = "hg_ship", viewer=KESTREL) -> dict:
    return part_context(state, ship_id, part, viewer)["display"][ship_id][part]


@pytest.mark.parametrize("strength", T.CREW_STEP_KEYS)
def test_TR_23_crew_ladder_is_the_step_table(strength: str) -> None:
    state = two_ships()
    state.ships["kestrel"].parts["hg_ship"]["crew_strength"] = strength
    ladder = shown(state)["crew"]
    step = T.crew_step(strength)
    now = next(s for s in ladder if s["now"])
    dm = "cannot act" if step.dm is None else f"{step.dm:+d}".replace("-", "−")
    fire = f", fire 1/{step.fire_every}" if step.fire_every and step.fire_every > 1 else ""
    assert now["label"] == f"{step.name} {dm}{fire}"
    assert [s["key"] for s in ladder][-1] == "dead" and len({s["key"] for s in ladder}) == len(ladder)
    html, _ = render(state, "kestrel", "hg_ship", KESTREL)
    assert f"<strong>[{now['label']}]</strong>" in html


def test_GEN_05_crew_skill_name_is_the_table() -> None:
    state = two_ships()
    for skill, name in enumerate(T.CREW_SKILL_NAMES):
        state.ships["kestrel"].parts["hg_ship"]["crew_skill"] = skill
        assert shown(state)["skill_name"] == name
        assert f"Crew Skill {skill} ({name})" in render(state, "kestrel", "hg_ship", KESTREL)[0]


def test_TR_18_next_roll_column_is_the_sections_own() -> None:
    state = two_ships()
    state.ships["kestrel"].parts["hg_ship"]["sections"][0]["hull"] = 0
    model = HgShip.model_validate(state.ships["kestrel"].parts["hg_ship"])
    assert shown(state)["columns"] == {s.slug: s.column.title() for s in model.sections}
    html, _ = render(state, "kestrel", "hg_ship", KESTREL)
    assert "next roll: Internal" in html and "next roll: External" in html


def test_TR_19_spinal_hit_cost_reads_the_hit_count() -> None:
    data = json.loads((LIBRARY / "tr-dauntless-battlecruiser.json").read_text())
    state = battle(data, owners=("p-kestrel",))
    sid = next(iter(state.ships))
    for hits, cost in ((0, ""), (1, "−2"), (2, "disabled")):
        state.ships[sid].parts["hg_ship"]["spinal"]["hits"] = hits
        spinal = HgShip.model_validate(state.ships[sid].parts["hg_ship"]).spinal
        row = next(
            r for r in shown(state, sid, viewer=OWNER)["systems"] if r["label"].startswith(spinal.name)
        )
        assert (row["hits"], row["most"], row["penalty"]) == (hits, 2, cost)


@pytest.mark.parametrize("unit", ["capital", "flight"])
def test_TR_26b_orders_offered_are_those_the_rules_accept(unit: str) -> None:
    """An order is on the form exactly when giving it (with a valid target) passes the rules' check."""
    flight = json.loads((LIBRARY / "tr-red-flight.json").read_text())
    state = battle(
        capital("Kestrel"), capital("Tigress"), flight, owners=("p-kestrel", "p-tigress", "p-kestrel")
    )
    for ship in state.ships.values():
        ship.side = "Imperial"  # one friendly target for Escort Defence and Fighter Screen
    sid = "kestrel" if unit == "capital" else "red-flight"
    part = "hg_ship" if unit == "capital" else "flight"
    raw = state.ships[sid].parts[part]
    model = HgShip.model_validate(raw) if unit == "capital" else Flight.model_validate(raw)
    offered = {f["key"] for f in shown(state, sid, part)["order_forms"]}
    for key, spec in T.ORDERS.items():
        if key == "one_more_shot":
            continue  # needs a damaged system: offered only then (below)
        targets = [o for o in state.ships if o != sid] if spec.needs_target else [None]
        accepted = False
        for target in targets:
            try:
                orders._check_choice(state, state.ships[sid], model, OrderChoice(order=key, target=target))
                accepted = True
            except RuleError:
                pass
        assert (key in offered) is accepted, key
    assert "one_more_shot" not in offered  # nothing is damaged yet


def test_TR_26_public_view_already_strips_orders_so_the_sheet_shows_what_it_is_given() -> None:
    state = advance_to(two_ships(), "orders").state
    state.ships["kestrel"].parts["hg_ship"]["round"]["orders"] = [
        {"order": "focused_fire", "target": "tigress"}
    ]
    assert shown(state)["orders"][0]["name"] == T.ORDERS["focused_fire"].name
    stranger = part_context(state, "kestrel", "hg_ship", STRANGER)
    assert stranger["display"]["kestrel"]["hg_ship"]["orders"] == []
    assert display.SYSTEM_LABELS["command"] == "Bridge"
