"""The High Guard sheets show the seed's tables (TR-18, TR-19, TR-23, TR-26b, GEN-05): expected rows
are written here from tables.md, not read from the rules' own tables, so a wrong table in the rules
fails these tests."""

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


# tables.md §1b, Crew Strength steps: step, skill DM and fire restriction ("once per N rounds").
CREW_LADDER = [
    ("dead", "Dead cannot act"),
    ("survivors", "Survivors −4, fire 1/5"),
    ("skeleton", "Skeleton −2, fire 1/3"),
    ("half", "Half −1, fire 1/2"),
    ("weakened", "Weakened +0"),
    ("full", "Full +0"),
    ("battle", "Battle +0"),
    ("overstrength", "Overstrength +0"),
    ("massively_overstrength", "Massively Overstrength +0"),
]
DOWN_FROM_FULL = ["full", "weakened", "half", "skeleton", "survivors", "dead"]  # TR-23: one step a hit


@pytest.mark.parametrize(("strength", "label"), CREW_LADDER)
def test_TR_23_crew_ladder_is_the_step_table(strength: str, label: str) -> None:
    state = two_ships()
    state.ships["kestrel"].parts["hg_ship"]["crew_strength"] = strength
    ladder = shown(state)["crew"]
    assert [s["label"] for s in ladder if s["now"]] == [label]
    # The ladder runs from the ship's step (or Full, below it) down to Dead.
    keys = [key for key, _ in CREW_LADDER]
    above = keys[keys.index(strength) : keys.index("full") : -1] if strength not in DOWN_FROM_FULL else []
    assert [s["key"] for s in ladder] == above + DOWN_FROM_FULL
    html, _ = render(state, "kestrel", "hg_ship", KESTREL)
    assert f"<strong>[{label}]</strong>" in html


def test_GEN_05_crew_skill_name_is_the_table() -> None:
    state = two_ships()
    # tables.md §1b, Crew Skill: Green +0, Average +1, Experienced +2, Elite +3, Legendary +4.
    for skill, name in enumerate(["Green", "Average", "Experienced", "Elite", "Legendary"]):
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
    # tables.md §4 requirements. Kestrel: Crew Skill 2, no spinal mount, not small craft. The flight:
    # small craft, skill the average of its craft (23/12, taken as 2). Neither has Crew Skill 3+.
    not_offered = {
        "capital": {
            "line_up_spinal",
            "fast_strafing_run",
            "fighter_screen",
            "engines_back_online",
            "one_more_shot",
        },
        "flight": {"line_up_spinal", "engines_back_online", "one_more_shot"},
    }[unit]
    assert set(T.ORDERS) - offered == not_offered
    assert len(T.ORDERS) == 25


def test_TR_26_public_view_already_strips_orders_so_the_sheet_shows_what_it_is_given() -> None:
    state = advance_to(two_ships(), "orders").state
    state.ships["kestrel"].parts["hg_ship"]["round"]["orders"] = [
        {"order": "focused_fire", "target": "tigress"}
    ]
    assert shown(state)["orders"][0]["name"] == "Focused Fire"  # tables.md §4, order 13
    stranger = part_context(state, "kestrel", "hg_ship", STRANGER)
    assert stranger["display"]["kestrel"]["hg_ship"]["orders"] == []
    assert display.SYSTEM_LABELS["command"] == "Bridge"
