"""The hg_ship and flight partials render from each viewer's view; the tr- sample ships load."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.rules.core import Actor, RuleError
from app.rules.generic.actions import ShipDefinition
from app.rules.traveller.display import panel as display_panel
from app.rules.views import Viewer
from app.web.drawing.render import render as render_page
from tests.helpers import Elements, part_context, render_part
from tests.rules.traveller.helpers import KESTREL_ACTOR, TIGRESS_ACTOR, act, advance_to, battle, capital

ROOT = Path(__file__).resolve().parents[3]
LIBRARY = ROOT / "app" / "shipdata" / "library"
SAMPLES = sorted(p.stem for p in LIBRARY.glob("tr-*.json"))
KESTREL = Viewer("p-kestrel", "player", frozenset({"kestrel"}))
STRANGER = Viewer("p-tigress", "player", frozenset({"tigress"}))
REFEREE_VIEW = Viewer("p-ref", "referee", frozenset())
FLIGHT_VIEW = Viewer("p-kestrel", "player", frozenset({"red-flight"}))
FLIGHT_ACTOR = Actor("p-kestrel", "player", frozenset({"red-flight"}))


def render(state, ship_id: str, part: str, viewer: Viewer) -> tuple[str, Elements]:
    return render_part(state, ship_id, part, viewer, seq=3, dice_mode="server")


def two_ships():
    return battle(capital("Kestrel"), capital("Tigress"), owners=("p-kestrel", "p-tigress"))


def test_TR_17_TR_18_section_bars_carry_hull_and_structure_and_next_column() -> None:
    state = advance_to(two_ships(), "combat").state
    state = act(
        state,
        "traveller.barrage",
        {
            "ship": "kestrel",
            "battery": "beam",
            "mounts": 20,
            "target": "tigress",
            "range": "medium",
            "adjacent": "fore",
        },
        KESTREL_ACTOR,
        [3, 4, 4],
    ).state
    html, parsed = render(state, "tigress", "hg_ship", STRANGER)
    main = parsed.by_id["tr-tigress-main"]
    assert (main["tag"], main["data-hull"], main["data-structure"]) == ("svg", "58", "66")
    assert main["viewbox"] == "0 0 304 20" and main["width"] == "100%"
    assert main["aria-label"] == "Main: Hull 58 of 66, Structure 66 of 66, armour 6"
    assert parsed.by_id["tr-tigress-forward"]["data-hull"] == "59"
    assert "next roll: External" in html
    assert "<title>Main: Hull 58 of 66, Structure 66 of 66, armour 6</title>" in html


def test_TR_26_partial_shows_orders_only_to_their_commander_before_the_reveal() -> None:
    state = act(two_ships(), "traveller.initiative", {}, dice=[6, 1]).state
    orders = {"ship": "kestrel", "orders": [{"order": "focused_fire", "target": "tigress"}], "commit": True}
    state = act(state, "traveller.orders", orders, KESTREL_ACTOR).state
    html, parsed = render(state, "kestrel", "hg_ship", STRANGER)
    assert "Committed ✓" in html
    assert "Focused Fire" not in html and "focused_fire" not in html
    assert parsed.actions == []
    own, own_parsed = render(state, "kestrel", "hg_ship", KESTREL)
    assert "Focused Fire → Tigress" in own
    # Kestrel has committed: no orders form; Tigress's captain gets the orders form for Tigress.
    assert own_parsed.actions == []
    _, tig = render(state, "tigress", "hg_ship", STRANGER)
    assert tig.actions == ["traveller.orders"]


def test_TR_23_crew_ladder_and_combat_forms_for_the_commander() -> None:
    state = two_ships()
    state.ships["kestrel"].parts["hg_ship"]["crew_strength"] = "half"
    state = advance_to(state, "combat").state
    html, parsed = render(state, "kestrel", "hg_ship", KESTREL)
    assert "<strong>[Half −1, fire 1/2]</strong>" in html
    assert parsed.actions == [
        "traveller.barrage",
        "traveller.dodge",
        "traveller.board",
        "traveller.combat_action",
        "traveller.pass",
        "traveller.emergency_order",
        "traveller.entered_hit",
    ]
    assert 'name="p.adjacent"' in html and 'name="p.range"' in html
    # Forms post in place with htmx and without JavaScript alike; attributes are not escaped away.
    assert html.count('hx-post="/battles/b1/actions" hx-target="#flash"') == 7
    assert 'Thrust left <span class="tr-num">4</span>' in html
    # A stranger (another captain) gets no forms for Kestrel at all.
    assert render(state, "kestrel", "hg_ship", STRANGER)[1].actions == []


def test_TR_03_TR_17_TR_24_referee_controls_on_the_sheet() -> None:
    """The referee rolls initiative and reveals orders from the battle-wide panel, not from any
    ship's card; rules a crippled ship from its own sheet; the commander begins the frozen watch's thaw."""
    state = battle(
        capital("Kestrel", frozen_watch_steps=1), capital("Tigress"), owners=("p-kestrel", "p-tigress")
    )
    html, kestrel = render(state, "kestrel", "hg_ship", REFEREE_VIEW)
    _, tigress = render(state, "tigress", "hg_ship", REFEREE_VIEW)
    # No orders before the engagement's initiative (TR-03): they could only be refused.
    assert kestrel.actions == ["traveller.revive_frozen_watch"]
    assert "Orders open once the referee rolls initiative" in html
    context = part_context(state, "kestrel", "hg_ship", REFEREE_VIEW)
    panel = Elements()
    panel.feed(render_page("rulesets/high_guard.html", {**context, "panel": display_panel(state)}))
    assert panel.actions == ["traveller.initiative", "traveller.reveal_orders"]
    assert tigress.actions == []
    state = act(state, "traveller.initiative", {}, dice=[3, 3]).state
    state.ships["tigress"].parts["hg_ship"]["referee_ruling"] = "pending"
    _, kestrel = render(state, "kestrel", "hg_ship", REFEREE_VIEW)
    _, tigress = render(state, "tigress", "hg_ship", REFEREE_VIEW)
    assert "traveller.initiative" not in kestrel.actions
    assert tigress.actions == ["traveller.rule_ship", "traveller.orders"]
    _, own = render(state, "kestrel", "hg_ship", KESTREL)
    assert own.actions == ["traveller.orders", "traveller.revive_frozen_watch"]


def test_TR_25_flight_partial_draws_one_tile_per_craft() -> None:
    data = json.loads((LIBRARY / "tr-red-flight.json").read_text())
    state = battle(capital("Kestrel"), data, owners=("p-kestrel",))
    state.ships["red-flight"].parts["flight"]["lost"] = 3
    html, parsed = render(state, "red-flight", "flight", KESTREL)
    craft = parsed.by_id["tr-red-flight-craft"]
    assert craft["data-craft"] == "9" and craft["aria-label"] == "Red Flight: 9 of 12 craft left"
    assert html.count('class="tr-craft-lost"') == 3 and html.count('class="tr-craft-ok"') == 9


def test_TR_26b_flight_commander_writes_small_craft_orders_on_the_flight_sheet() -> None:
    """TR-26b: A flight is a unit: its commander must be able to commit orders, or the reveal never comes."""
    data = json.loads((LIBRARY / "tr-red-flight.json").read_text())
    state = battle(capital("Tigress"), data, owners=("p-tigress", "p-kestrel"))
    state = act(state, "traveller.initiative", {}, dice=[3, 4, 4]).state  # 2D 7; 1d6 4 + 2
    html, parsed = render(state, "red-flight", "flight", FLIGHT_VIEW)
    assert parsed.actions == ["traveller.orders"]
    assert "Fast Strafing Run (4)" in html and "Fighter Screen (4)" in html
    assert "Line up Spinal Mount!" not in html and "I Only Need One More Shot" not in html
    assert render(state, "red-flight", "flight", STRANGER)[1].actions == []
    state = act(
        state,
        "traveller.orders",
        {"ship": "red-flight", "orders": [{"order": "fast_strafing_run"}], "commit": True},
        FLIGHT_ACTOR,
    ).state
    html, parsed = render(state, "red-flight", "flight", FLIGHT_VIEW)
    assert parsed.actions == [] and "<li>Fast Strafing Run</li>" in html
    assert "Fast Strafing Run" not in render(state, "red-flight", "flight", STRANGER)[0]
    state = advance_to(state, "combat").state
    # TR-04: Tigress acts first; once it has finished, the flight's combat actions are offered.
    state = act(state, "traveller.pass", {"ship": "tigress"}, TIGRESS_ACTOR).state
    _, parsed = render(state, "red-flight", "flight", FLIGHT_VIEW)
    assert parsed.actions == [
        "traveller.barrage",
        "traveller.dodge",
        "traveller.combat_action",
        "traveller.pass",
        "traveller.emergency_order",
    ]


@pytest.mark.parametrize("slug", SAMPLES)
def test_TR_18_sample_ships_are_labelled_and_load_through_ship_add(slug: str) -> None:
    data = json.loads((LIBRARY / f"{slug}.json").read_text())
    ShipDefinition.model_validate(data)
    assert (
        data["sample"] is True and data["system"] == "traveller" and data["klass"].endswith("(sample data)")
    )
    state = battle(data)
    ship = next(iter(state.ships.values()))
    assert ship.parts


def test_TR_18_samples_cover_every_section_count_turrets_bays_spinals_screens_and_a_flight() -> None:
    parts = [json.loads((LIBRARY / f"{slug}.json").read_text())["parts"] for slug in SAMPLES]
    ships = [battle({"name": "x", "system": "traveller", "parts": p}) for p in parts if "hg_ship" in p]
    loaded = [next(iter(s.ships.values())).parts["hg_ship"] for s in ships]
    assert sorted(len(p["sections"]) for p in loaded) == [2, 3, 4, 5, 6]
    assert sorted(p["spinal"]["type"] for p in loaded if p.get("spinal")) == ["meson", "particle"]
    mounts = {b["label"].split(":")[0] for p in loaded for b in p["batteries"]}
    assert {"Turret", "Barbette", "Bay"} <= mounts
    assert any(p["screens"] for p in loaded)
    assert any("flight" in p for p in parts)
    # Every battery got at least one Section Hit slot by the design rules.
    for p in loaded:
        refs = {
            slot["ref"]
            for s in p["sections"]
            for slot in s["hit_table"]["external"] + s["hit_table"]["internal"]
        }
        assert {b["id"] for b in p["batteries"]} <= refs


def test_TR_19_TR_27_thrust_jump_and_launch_forms_follow_the_step_and_the_ship() -> None:
    """Manoeuvre step: Spend Thrust with what is left; a bridge hit shows the grounded round; ship
    action: the jump (with Prepare for Jump!'s +2 named); a jumped ship has no forms; a spacecraft
    with launchers fires individual missiles; a flight launches from a friendly ship."""
    state = battle(
        capital("Kestrel", jump=3), capital("Tigress"), owners=("p-kestrel", "p-tigress"), orders=False
    )
    state = act(
        state, "traveller.entered_hit", {"target": "kestrel", "section": "Forward", "system": "command"}
    ).state
    state = advance_to(state, "manoeuvre").state
    html, parsed = render(state, "kestrel", "hg_ship", KESTREL)
    assert parsed.actions == ["traveller.manoeuvre"]
    assert "Manoeuvre · Thrust left 4" in html and "grounded this round" not in html
    state = advance_to(state, "manoeuvre", turn=2).state
    html, _ = render(state, "kestrel", "hg_ship", KESTREL)
    assert "bridge hit: grounded this round" in html
    state = advance_to(state, "ship_action", turn=2).state
    _, parsed = render(state, "kestrel", "hg_ship", KESTREL)
    assert parsed.actions == ["traveller.jump"]
    state.ships["kestrel"].parts["hg_ship"]["jumped"] = 2
    html, parsed = render(state, "kestrel", "hg_ship", KESTREL)
    assert parsed.actions == [] and "⤴ jumped out in round 2" in html


def test_TR_01_TR_25_missile_form_for_spacecraft_and_launch_form_for_flights() -> None:
    gig = capital("Gig")
    gig["parts"]["hg_ship"] = {
        "kind": "spacecraft",
        "displacement": 400,
        "thrust": 6,
        "sections": [{"name": "Hull", "hull_max": 8, "structure_max": 8}],
        "batteries": [{"id": "missiles", "weapon": "missile_turret", "mounts": 2}],
    }
    data = json.loads((LIBRARY / "tr-red-flight.json").read_text())
    carrier = capital("Tigress")
    carrier["side"] = data["side"]
    state = battle(carrier, gig, data, owners=("p-tigress", "p-kestrel", "p-kestrel"), orders=False)
    state = advance_to(state, "combat").state
    viewer = Viewer("p-kestrel", "player", frozenset({"gig", "red-flight"}))
    html, parsed = render(state, "gig", "hg_ship", viewer)
    assert "traveller.missile" in parsed.actions and "Turret: Missile ×2" in html
    html, parsed = render(state, "red-flight", "flight", viewer)
    assert parsed.actions[0] == "traveller.launch" and '<option value="tigress">Tigress</option>' in html


def test_GEN_02_physical_dice_box_only_on_forms_whose_action_rolls() -> None:
    """Physical dice: barrage, spinal, dodge and repair forms carry the Dice box; orders, emergency
    orders, passing, boarding and other actions (which roll nothing) do not."""
    state = advance_to(two_ships(), "combat").state
    context = part_context(state, "kestrel", "hg_ship", KESTREL, seq=3, dice_mode="physical")
    html = render_page("parts/hg_ship.html", context)
    forms = html.split("<form ")[1:]
    with_dice = [f.split('name="action_type" value="')[1].split('"')[0] for f in forms if 'name="dice"' in f]
    assert with_dice == ["traveller.barrage", "traveller.dodge"]


def test_TR_26_a_saved_draft_is_put_back_into_the_orders_form_for_its_captain_only() -> None:
    """Orders that cannot be lost: after a reload (a fresh render) the form shows the draft as saved,
    so Commit commits what the form shows; nobody else's page carries the draft."""
    state = act(two_ships(), "traveller.initiative", {}, dice=[6, 1]).state
    draft = {
        "ship": "kestrel",
        "orders": [{"order": "focused_fire", "target": "tigress"}, {"order": "angle_max_effect"}],
    }
    state = act(state, "traveller.orders", draft, KESTREL_ACTOR).state
    html, _ = render(state, "kestrel", "hg_ship", KESTREL)
    assert """value='{"order": "angle_max_effect"}' checked""" in html
    assert """value='{"order": "focused_fire", "target": "tigress"}' selected""" in html
    assert "Your saved draft is ticked above" in html
    others, _ = render(state, "kestrel", "hg_ship", STRANGER)
    assert " checked" not in others and " selected" not in others and "angle_max_effect" not in others


def test_TR_05_the_barrage_form_shows_each_weapons_cap_before_it_refuses() -> None:
    """The mounts that may fire this round, and why no more, are on the form beside the weapon
    (here a standard hull's configuration, 80% of its 25 beam lasers: the table's bearing)."""
    state = advance_to(two_ships(), "combat").state
    html, _ = render(state, "kestrel", "hg_ship", KESTREL)
    caps = html.split('id="barrage-caps-kestrel"')[1].split("</ul>")[0]
    assert "Turret: Beam Laser: at most 20 of 25 this round (configuration 80%)" in " ".join(caps.split())
    assert "×25 — 20 may fire</option>" in html
    refused = act_refused(state, {"ship": "kestrel", "battery": "beam", "mounts": 21, "target": "tigress"})
    assert refused == "only 20 of 25 Turret: Beam Laser mounts may fire at this target (configuration 80%)"


def act_refused(state, shot: dict) -> str:
    """The rules' refusal of this barrage in words."""
    try:
        act(state, "traveller.barrage", {"range": "medium", "adjacent": "fore", **shot}, KESTREL_ACTOR)
    except RuleError as exc:
        return exc.message
    raise AssertionError("the barrage was taken")
