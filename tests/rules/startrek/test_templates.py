"""The Star Trek part partials render from the viewer's view of the rules state (ux §2b, §8)."""

from __future__ import annotations

from app.rules.registry import new_battle
from app.rules.views import Viewer, battle_view
from tests.helpers import Elements, render_part
from tests.rules.startrek.helpers import (
    KER,
    RAIDER,
    act,
    add,
    advance_to,
    battle,
    definition,
    hit,
    player,
    set_value,
)


def render(state, ship_id: str, part: str, viewer: Viewer) -> tuple[str, Elements]:
    return render_part(state, ship_id, part, viewer, dice_mode="server")


def commander(ship_id: str) -> Viewer:
    return Viewer(f"p-{ship_id}", "player", frozenset({ship_id}))


STRANGER = Viewer("p-x", "player", frozenset({"raider"}))


def test_ST_05_shields_partial_draws_each_projection_with_id_and_current():
    state = battle("excelsior")
    state, _ = hit(state, "excelsior", 8, direction="fore")
    html, found = render(state, "excelsior", "shields", commander("excelsior"))
    fore = found.by_id["shield-excelsior-fore"]
    assert (fore["data-current"], fore["data-rating"]) == ("32", "40")
    # The ring's <svg role="img"> names the whole; each arc keeps a tooltip, no ARIA of its own.
    assert "aria-label" not in fore and "<title>Fore shield, 32 of 40</title>" in html
    assert [found.by_id[f"shield-excelsior-{n}"]["data-current"] for n in ("starboard", "aft", "port")] == [
        "30",
        "30",
        "30",
    ]
    assert "32/40" in html and 'viewBox="0 0 240 200"' in html and 'width="100%"' in html
    assert "<title" in html


def test_ST_12_collapsed_projection_is_dashed_and_labelled_down():
    state = battle("excelsior")
    state = set_value(state, "ships.excelsior.parts.shields.projections.3.collapsed", True)
    state = set_value(state, "ships.excelsior.parts.shields.projections.3.current", 0)
    html, found = render(state, "excelsior", "shields", STRANGER)
    assert "<title>Port shield, 0 of 30, DOWN</title>" in html
    assert 'class="st-arc-down"' in html and ">DOWN<" in html


def test_ST_07_forms_only_for_the_commander_and_in_the_right_step():
    state = battle("excelsior")
    _, mine = render(state, "excelsior", "shields", commander("excelsior"))
    assert mine.actions == ["startrek.buy_regeneration", "startrek.extend_arc", "startrek.switch_system"]
    _, theirs = render(state, "excelsior", "shields", STRANGER)
    assert theirs.actions == []
    state = advance_to(state, "adjust_systems")
    _, mine = render(state, "excelsior", "shields", commander("excelsior"))
    assert mine.actions == ["startrek.transfer_shields"]


def test_ST_05_single_projection_ring_and_medium_halves():
    state = battle("klingon-bird-of-prey", "new-orleans")
    _, found = render(state, "kor-vaq", "shields", STRANGER)
    assert found.by_id["shield-kor-vaq-shield"]["data-current"] == "20"
    _, found = render(state, "thomas-paine", "shields", STRANGER)
    assert {"shield-thomas-paine-fore", "shield-thomas-paine-aft"} <= set(found.by_id)


def test_ST_16_first_one_badge_and_names_are_escaped():
    data = {**KER, "name": "Ker <b>"}
    state = battle(data)
    html, _ = render(state, "ker-b", "first_one", STRANGER)
    assert "First One" in html
    evil = definition("excelsior")
    evil["name"] = "<script>x</script>"
    state = battle(evil)
    html, _ = render(state, "script-x-script", "shields", STRANGER)
    assert "<script>" not in html and "&lt;script&gt;" in html


def test_power_partial_is_only_for_the_commander():
    state = battle("excelsior")
    html, found = render(state, "excelsior", "power", commander("excelsior"))
    assert found.by_id["power-excelsior-left"]["data-left"] == "8"
    assert "startrek.switch_system" in found.actions
    assert "power" not in battle_view(state, STRANGER)["ships"]["excelsior"]["parts"]


def test_ST_03_impulse_partial_shows_doubled_costs():
    state = battle("excelsior")
    state = set_value(state, "ships.excelsior.parts.impulse.all_thrusters_lost", True)
    html, _ = render(state, "excelsior", "impulse", STRANGER)
    assert "Acc/Dec 6" in html and "Ini -8" in html and "initiative −10" in html


def test_ST_18_warp_partial_shows_nacelle_failure_chance():
    state = set_value(battle("excelsior"), "ships.excelsior.parts.sheet.sections.1.systems.0.damage", 18)
    html, found = render(state, "excelsior", "warp", commander("excelsior"))
    assert found.by_id["warp-excelsior-port-nacelle"]["data-chance"] == "18"
    assert found.actions == ["startrek.declare_warp"]


def test_ST_22_cloak_partial_for_others_hides_the_position():
    from app.rules import new_battle
    from tests.rules.startrek.helpers import add

    state = new_battle("b5wars")
    state = add(state, definition("excelsior"))
    state = add(state, definition("klingon-bird-of-prey"), {"hex": "0917"})
    state = advance_to(state, "adjust_systems")
    state, _ = act(state, "startrek.cloak", {"ship": "kor-vaq"}, player("kor-vaq"))
    html, found = render(state, "kor-vaq", "cloak", commander("excelsior"))
    assert found.by_id["cloak-kor-vaq-state"]["data-cloaked"] == "true"
    assert "0917" not in html and "Signature" not in html
    assert found.actions == []  # ST-23: detection is tried in the Combat segment
    # Its commander's card is the same ship's, with what only the commander reads (ST-23 signature).
    own, own_found = render(state, "kor-vaq", "cloak", commander("kor-vaq"))
    assert own_found.by_id["cloak-kor-vaq-state"]["data-cloaked"] == "true"
    assert "Signature not set" in own and own_found.actions == ["startrek.decloak"]
    state = advance_to(state, "combat", turn=2)
    html, found = render(state, "kor-vaq", "cloak", commander("excelsior"))
    assert "0917" not in html
    assert found.actions == ["startrek.detect_cloak"]


def test_ST_22_thrust_spent_cloaked_is_hidden_from_others_until_the_next_turn():
    from app.rules import new_battle
    from tests.rules.startrek.helpers import add

    bird = player("kor-vaq")
    state = new_battle("b5wars")
    state = add(state, definition("excelsior"))
    state = add(state, definition("klingon-bird-of-prey"), {"hex": "0917"})
    state = advance_to(state, "adjust_systems")
    state, _ = act(state, "startrek.cloak", {"ship": "kor-vaq"}, bird)
    state = advance_to(state, "movement", turn=2)
    state, _ = act(state, "startrek.thrust", {"ship": "kor-vaq", "manoeuvre": "pivot"}, bird)
    html, found = render(state, "kor-vaq", "impulse", commander("excelsior"))
    assert (
        battle_view(state, commander("excelsior"))["ships"]["kor-vaq"]["parts"]["impulse"]["thrust_used"]
        is None
    )
    assert found.by_id["impulse-kor-vaq"]["data-value"] == "hidden/1"
    assert "Used this turn: unknown (it manoeuvred cloaked)" in html
    mine, found = render(state, "kor-vaq", "impulse", commander("kor-vaq"))
    assert found.by_id["impulse-kor-vaq"]["data-value"] == "2/1" and "Used this turn: 2 of 8" in mine
    # Decloaking at the end of that turn does not open what it spent while cloaked ...
    state = advance_to(state, "adjust_systems", turn=2)
    state, _ = act(state, "startrek.decloak", {"ship": "kor-vaq"}, bird)
    _, found = render(state, "kor-vaq", "impulse", commander("excelsior"))
    assert found.by_id["impulse-kor-vaq"]["data-value"] == "hidden/1"
    # ... and the next turn's thrust, spent visibly, is public again.
    state = advance_to(state, "movement", turn=3)
    state, _ = act(state, "startrek.thrust", {"ship": "kor-vaq", "manoeuvre": "pivot"}, bird)
    html, found = render(state, "kor-vaq", "impulse", commander("excelsior"))
    assert found.by_id["impulse-kor-vaq"]["data-value"] == "2/1" and "Used this turn: 2 of 8" in html


def test_ST_22_last_known_position_reads_in_a_fixed_order():
    from app.rules import new_battle
    from tests.rules.startrek.helpers import add

    state = new_battle("b5wars")
    state = add(state, definition("excelsior"))
    state = add(
        state,
        definition("klingon-bird-of-prey"),
        {"speed": 6, "note": "asteroids", "facing": 2, "hex": "1012"},
    )
    state = advance_to(state, "adjust_systems")
    state, _ = act(state, "startrek.cloak", {"ship": "kor-vaq"}, player("kor-vaq"))
    state = advance_to(state, "adjust_systems", turn=2)
    state, _ = act(state, "startrek.decloak", {"ship": "kor-vaq"}, player("kor-vaq"))
    html, _ = render(state, "kor-vaq", "cloak", commander("excelsior"))
    assert "Last known position: hex 1012, facing 2, speed 6, note asteroids." in html


def test_ST_25_photon_partial_shows_pips_and_volley_penalties():
    state = advance_to(battle("new-orleans", "excelsior"), "combat")
    html, found = render(state, "thomas-paine", "photon_launcher", commander("thomas-paine"))
    assert found.by_id["photon-thomas-paine-advanced-photon-launcher"]["data-loaded"] == "3"
    assert "●●●" in html and "3 (−2 each)" in html
    assert found.actions == ["startrek.fire_torpedoes"]


def test_ST_25_a_volley_is_offered_only_at_ships_fighting_against_the_firer():
    """The target list holds the other side's ships, not the firing commander's own second ship
    (nor the firing ship, nor a destroyed one)."""
    wreck = {**RAIDER, "name": "Wreck"}
    state = battle("new-orleans", "excelsior", RAIDER, wreck)
    state = set_value(state, "ships.excelsior.owner", "p-thomas-paine")  # one commander, two ships
    state = set_value(state, "ships.wreck.destroyed", True)
    state = advance_to(state, "combat")
    kirk = Viewer("p-thomas-paine", "player", frozenset({"thomas-paine", "excelsior"}))
    html, _ = render(state, "thomas-paine", "photon_launcher", kirk)
    options = html.split('name="p.target"')[1].split("</select>")[0]
    assert '<option value="raider">Raider</option>' in options
    assert "excelsior" not in options and "thomas-paine" not in options and "wreck" not in options


def test_ST_16_the_first_one_card_says_where_the_trait_acts():
    """ST-16 acts on deflector shields where the Star Trek rules play: the card names the shielded
    ships there, says none carry them in a battle without, and says it does nothing in SFB."""
    state = battle(KER, "excelsior")
    html, _ = render(state, "ker", "first_one", STRANGER)
    assert "counts double against deflector shields (ST-16): Excelsior." in " ".join(html.split())
    html, _ = render(battle(KER), "ker", "first_one", STRANGER)
    assert "no ship here carries them" in html and "Star Trek shields" not in html
    sfb = add(new_battle("sfb"), {**KER, "system": "sfb"})
    html, _ = render(sfb, "ker", "first_one", STRANGER)
    assert "does nothing in Star Fleet Battles" in " ".join(html.split()) and "(ST-16):" not in html
