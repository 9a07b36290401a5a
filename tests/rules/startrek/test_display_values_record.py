"""What the Star Trek part cards read from the rules, key by key (ST-03, ST-05 … ST-25): each
deflector's feed and switch, the shields' ring and what fell or was extended (ST-12, ST-14, ST-15a),
the power bought (ST-07), thrust costs and each thruster's boxes (ST-03), each nacelle's state and
the warp choices (ST-17 … ST-20), the cloak's toggle and pending attempts (ST-21, ST-23), the ships
First One fire can reach (ST-16) and the volleys a launcher allows (ST-25).

Every figure is the library ships': the Excelsior's deflectors Fore 4, Starboard 3, Aft 3, Port 3,
each covering its own projection; roll 4; two impulse thrusters and two nacelles of 6 and 20 boxes.
"""

from __future__ import annotations

from typing import Any

from app.rules import BattleState
from app.rules.startrek import display
from tests.rules.startrek.helpers import KER, RAIDER, act, battle, commander_act, player, set_value

do = commander_act("excelsior")


def card(state: BattleState, ship: str, part: str, values: Any) -> dict[str, Any]:
    return values(state.ships[ship].parts[part], state.ships[ship], state)


def test_ST_07_ST_14_the_shield_card() -> None:
    state, _ = do(battle("excelsior"), "extend_arc", deflector="Fore Deflector", projection="Port")
    state, _ = do(state, "switch_system", system="Aft Deflector")
    shown = card(state, "excelsior", "shields", display.shield_values)
    assert [d["shut_down"] for d in shown["deflectors"]] == [False, False, True, False]
    # the Fore Deflector, extended, gives 4 − 1 = 3 to the Fore it covers (and the Port it reaches)
    assert shown["feeds"] == {"Fore": ["+3"], "Starboard": ["+3"], "Aft": ["+3"], "Port": ["+3"]}
    assert (shown["ring"], shown["fallen"], shown["extended"]) == (True, [], ["Fore Deflector"])
    assert card(battle("klingon-bird-of-prey"), "kor-vaq", "shields", display.shield_values)["ring"] is False


def test_ST_15a_the_shield_card_lists_what_had_fallen_as_the_segment_opened() -> None:
    state = set_value(battle("excelsior"), "ships.excelsior.parts.shields.projections.3.down_at_open", True)
    assert card(state, "excelsior", "shields", display.shield_values)["fallen"] == ["Port"]


def test_ST_05_ST_12_a_collapsed_projection_is_drawn_so_on_the_map() -> None:
    state = set_value(battle("excelsior"), "ships.excelsior.parts.shields.projections.3.collapsed", True)
    ring = display.shield_counter(state.ships["excelsior"].parts["shields"]).ring
    assert [band.collapsed for band in ring] == [False, False, False, True]


def test_ST_07_the_power_card_counts_what_was_bought() -> None:
    state = set_value(battle("excelsior"), "ships.excelsior.parts.shields.projections.0.current", 30)
    state, _ = do(state, "buy_regeneration", deflector="Fore Deflector", points=2)
    assert card(state, "excelsior", "power", display.power_values)["bought"] == 2


def test_ST_03_the_impulse_card() -> None:
    """ST-03: with the Port thruster 2 boxes down nothing doubles; with both destroyed, roll 4 → 8."""
    state = set_value(battle("excelsior"), "ships.excelsior.parts.sheet.sections.4.systems.0.damage", 2)
    shown = card(state, "excelsior", "impulse", display.impulse_values)
    assert (shown["roll"], shown["doubled"]) == (4, False)
    assert shown["thrusters"] == [
        {"name": "Port Impulse Thruster", "left": 4, "boxes": 6, "lost": False},
        {"name": "Starboard Impulse Thruster", "left": 6, "boxes": 6, "lost": False},
    ]
    state = set_value(state, "ships.excelsior.parts.sheet.sections.4.systems.0.damage", 6)
    state = set_value(state, "ships.excelsior.parts.sheet.sections.4.systems.1.damage", 6)
    state = set_value(state, "ships.excelsior.parts.impulse.all_thrusters_lost", True)
    shown = card(state, "excelsior", "impulse", display.impulse_values)
    assert (shown["roll"], shown["doubled"], shown["thrusters"][0]["lost"]) == (8, True, True)


def test_ST_17_ST_20_the_warp_card() -> None:
    """The Starboard Nacelle destroyed (20 of 20): dead, not off; no shut-down with two nacelles
    (ST-20); declared once the Excelsior goes to warp (ST-17)."""
    state = set_value(battle("excelsior"), "ships.excelsior.parts.sheet.sections.3.systems.0.damage", 20)
    shown = card(state, "excelsior", "warp", display.warp_values)
    assert [(n["name"], n["dead"], n["off"]) for n in shown["nacelles"]] == [
        ("Port Nacelle", False, False),
        ("Starboard Nacelle", True, False),
    ]
    assert (shown["may_shut_down"], shown["declared"]) == (False, False)
    state, _ = act(battle("excelsior"), "startrek.declare_warp", {"ship": "excelsior"}, player("excelsior"))
    assert card(state, "excelsior", "warp", display.warp_values)["declared"] is True


def test_ST_20_the_warp_card_offers_a_shut_down_with_more_than_two_nacelles() -> None:
    from tests.rules.startrek.test_warp_record import four_nacelles

    shown = card(battle(four_nacelles()), "excelsior", "warp", display.warp_values)
    assert (shown["may_shut_down"], [n["off"] for n in shown["nacelles"]]) == (True, [False] * 4)


def test_ST_21_ST_23_the_cloak_card() -> None:
    state = battle("klingon-bird-of-prey")
    part = state.ships["kor-vaq"].parts["cloak"]
    assert display.cloak_values(part, state.ships["kor-vaq"], state)["toggle"] == "startrek.cloak"
    attempts = [{"index": 0, "ruling": None}, {"index": 1, "ruling": True}]
    shown = display.cloak_values(
        {**part, "cloaked": True, "attempts": attempts}, state.ships["kor-vaq"], state
    )
    assert (shown["toggle"], shown["pending"]) == ("startrek.decloak", [{"index": 0, "ruling": None}])


def test_ST_16_the_first_one_card_names_only_other_shielded_ships() -> None:
    state = battle("excelsior", KER, RAIDER, "klingon-bird-of-prey")  # the Raider has no shields
    shown = card(state, "ker", "first_one", display.first_one_values)
    assert shown["shielded"] == ["Excelsior", "Kor'vaq"]


def test_ST_25_the_launcher_card_offers_volleys_up_to_what_it_holds() -> None:
    """ "Able to store up to three torpedoes": volleys of 1, 2, 3 at ±0, −1, −2; none without a launcher."""
    state = battle("new-orleans")
    shown = card(state, "thomas-paine", "photon_launcher", display.photon_values)
    assert shown["volleys"] == [(1, "±0"), (2, "−1"), (3, "−2")]
    assert display.photon_values({"launchers": []}, state.ships["thomas-paine"], state)["volleys"] == []
