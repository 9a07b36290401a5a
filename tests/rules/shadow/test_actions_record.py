"""What the Shadow commander's actions decide and record beyond their sentences: who counts as the
nearest enemy for FIVE's phase-out (SH-12), what the reduction roll records (SH-14, SH-15), that a
panicked ship's fire is refused (SH-12), that a ship dead of shock stays dead (SH-02), and the
refusals a player can act on.

Every number is the seed's (seed 000): FIVE must try to phase out "as soon as ship is 10 hexes from
the nearest enemy ship"; it "cannot fire for the remainder of the turn"; pain reduction is "D6".
"""

from __future__ import annotations

from typing import Any

import pytest

from app.rules import new_battle
from app.rules.core import RuleError
from app.rules.state import BattleState

from .support import (
    EXCALIBUR,
    KER,
    PLAYER,
    YORKTOWN,
    act,
    active,
    at_impulse,
    battle,
    end_impulse,
    federation,
    hit,
    pain,
    tough_shadow,
    until_step,
)


def _place(state: BattleState, **hexes: str) -> BattleState:
    for ship, where in hexes.items():
        state, _ = act(state, "ship.move", {"ship": ship, "position": {"hex": where, "facing": 1}})
    return state


def _panicked(**hexes: str) -> BattleState:
    """Ker panicked (pain 14, FIVE), Excalibur and Yorktown (Federation) against it, placed on the map."""
    return _place(battle(level=14, reaction="FIVE"), **hexes)


def _add(state: BattleState, definition: dict[str, Any], owner: str) -> BattleState:
    state, _ = act(state, "ship.add", {"definition": definition, "owner": owner})
    return state


def _report(state: BattleState) -> Any:
    state, events = act(state, "shadow.report_range", {"ship": KER})
    (event,) = events
    return event


def _refused(state: BattleState, kind: str, payload: dict[str, Any], **kwargs: Any) -> RuleError:
    with pytest.raises(RuleError) as err:
        act(state, kind, payload, **kwargs)
    return err.value


def test_SH_12_a_destroyed_ship_is_no_nearest_enemy() -> None:
    """SH-12 with GEN-04: a destroyed ship is out of the game; with Excalibur (10 hexes) destroyed,
    the nearest enemy is Yorktown at 14, and Ker must attempt to phase out."""
    state = _panicked(ker="0101", excalibur="1101", yorktown="0115")
    state, _ = hit(state, 5000, source=None, target=EXCALIBUR)
    event = _report(state)
    assert event.data == {"range": 14, "nearest": YORKTOWN, "from_map": True}


def test_SH_12_a_friendly_ship_of_another_commander_is_no_enemy() -> None:
    """SH-12: the range is to "the nearest enemy ship": another commander's Shadow 3 hexes away is on
    Ker's side, so Excalibur at 10 is the nearest enemy."""
    state = _panicked(ker="0101", excalibur="1101", yorktown="0115")
    ally = {**tough_shadow(), "name": "Shade"}
    state = _add(state, ally, "p-ally")
    shade = next(s.id for s in state.ships.values() if s.name == "Shade")
    state = _place(state, **{shade: "0104"})
    assert _report(state).data == {"range": 10, "nearest": EXCALIBUR, "from_map": True}


def test_SH_12_a_sideless_ship_of_the_same_commander_is_no_enemy() -> None:
    """SH-12: where one ship has no side, enemies are told apart by commander: a sideless ship of Ker's
    own commander 3 hexes away is not an enemy; Excalibur at 10 is."""
    state = _panicked(ker="0101", excalibur="1101", yorktown="0115")
    tender = {k: v for k, v in federation("Tender").items() if k != "side"}
    state = _add(state, tender, "p-shadow")
    tender_id = next(s.id for s in state.ships.values() if s.name == "Tender")
    state = _place(state, **{tender_id: "0104"})
    assert _report(state).data == {"range": 10, "nearest": EXCALIBUR, "from_map": True}


def test_SH_12_without_sides_the_enemy_is_the_other_commanders_ship() -> None:
    """SH-12: where no ship has a side, the enemy is the other commander's: Excalibur, 5 hexes off,
    while Ker's own sideless consort at 3 is not."""
    state = new_battle("sfb")
    shadow = {k: v for k, v in tough_shadow(14, reaction="FIVE").items() if k != "side"}
    state = _add(state, shadow, "p-shadow")
    state = _add(state, {k: v for k, v in federation("Excalibur").items() if k != "side"}, "p-fed")
    state = _add(state, {k: v for k, v in federation("Consort").items() if k != "side"}, "p-shadow")
    consort = next(s.id for s in state.ships.values() if s.name == "Consort")
    state = _place(state, **{KER: "0101", EXCALIBUR: "0601", consort: "0104"})
    event = _report(state)
    assert event.data == {"range": 5, "nearest": EXCALIBUR, "from_map": True}
    assert (
        event.text
        == "Ker is 5 hexes from the nearest enemy (Excalibur, from the map): under 10, it keeps evading."
    )


def test_SH_12_two_enemies_at_the_same_range_give_that_range() -> None:
    """SH-12: Excalibur and Yorktown both 10 hexes away: the nearest enemy is 10 hexes off either way."""
    state = _panicked(ker="0101", excalibur="1101", yorktown="0111")
    event = _report(state)
    assert event.data["range"] == 10
    assert event.data["nearest"] in (EXCALIBUR, YORKTOWN)


def test_SH_12_no_enemy_on_the_board_asks_for_the_range() -> None:
    """SH-12: with both Federation ships destroyed there is no enemy to measure to: the range must be
    entered, and the refusal names the `range` field."""
    state = _panicked(ker="0101", excalibur="1101", yorktown="0115")
    state, _ = hit(state, 5000, source=None, target=EXCALIBUR)
    state, _ = hit(state, 5000, source=None, target=YORKTOWN)
    err = _refused(state, "shadow.report_range", {"ship": KER})
    assert (err.field, err.message) == (
        "range",
        "range: there is no enemy ship on the board; enter the range",
    )


def test_SH_12_every_unplaced_enemy_is_named() -> None:
    """SH-12: neither enemy has a hex: the refusal names both, and asks for the range."""
    state = _panicked(ker="0101")
    err = _refused(state, "shadow.report_range", {"ship": KER})
    assert (err.field, err.message) == (
        "range",
        "range: Excalibur, Yorktown have no hex on the map; enter the range to the nearest enemy",
    )


def test_SH_12_a_phase_out_with_none_owed_is_refused() -> None:
    """SH-12: a phase-out is resolved only once one is owed (10 hexes reached at FIVE)."""
    err = _refused(
        battle(level=14, reaction="FIVE"), "shadow.phase_out", {"ship": KER, "result": "phased_out"}
    )
    assert (err.field, err.message) == ("ship", "Ker has no phase-out to resolve")


def test_SH_12_a_panicked_ships_fire_is_refused_for_the_rest_of_the_turn_only() -> None:
    """SH-12: FIVE "cannot fire for the remainder of the turn": fire entered from Ker in turn 1 is
    refused, naming the source; fire at Ker is not; in turn 2 Ker fires again."""
    state = at_impulse(level=12)
    state, _ = hit(state, 250)
    state, _ = end_impulse(state, [6, 1, 6, 3])  # 1d6 + 1 = 2 → pain 14: FIVE
    err = _refused(state, "damage.apply", {"target": EXCALIBUR, "amount": 10, "source": KER})
    assert (err.field, err.message) == (
        "source",
        "Ker is panicked and cannot fire for the rest of turn 1 (SH-12)",
    )
    state, _ = hit(state, 10, source=EXCALIBUR)  # Excalibur fires at the panicked ship as usual
    state = until_step(until_step(state, "energy_allocation"), "impulse", 1)
    assert state.clock.turn == 2
    state, events = hit(state, 10, source=KER, target=EXCALIBUR)
    assert [(e.kind, e.text) for e in events] == [("damage", "Ker hits Excalibur for 10 (fore): 10 to Hull.")]


def test_SH_14_SH_15_the_reduction_records_the_shadows_roll_and_first_ends_what_is_due() -> None:
    """SH-14/SH-15: Ker at THREE on Yorktown, pain 9; Yorktown is destroyed (by the referee) before
    the roll. The reduction (roll 2: pain 9 → 7, TWO) first releases the target — so no Shadow Cutter
    attack is owed — and records the roll and the figures against Ker."""
    target = {
        "kind": "target",
        "level": "THREE",
        "text": "must target Yorktown until it is destroyed",
        "target": YORKTOWN,
        "since": {"turn": 1, "impulse": None},
        "until": "target_destroyed",
    }
    state = battle(level=9, reaction="THREE", obligations=[target])
    state, _ = act(
        state, "override.set", {"path": "ships.yorktown.destroyed", "value": True, "reason": "rammed"}
    )
    state, events = act(state, "shadow.reduce_pain", {"ship": KER}, [2], actor=PLAYER)
    (event,) = events
    assert (event.ship, event.data) == (KER, {"old": 9, "new": 7, "reaction": "TWO"})
    assert [(r.ship, r.total) for r in event.rolls] == [(KER, 2)]
    (ended,) = pain(state).obligations
    assert (ended.ended, ended.ended_turn) == ("Yorktown is destroyed", 1)
    assert active(state) == []


def test_SH_14_only_a_living_ship_rolls_pain_reduction() -> None:
    """SH-14: the reduction is the Shadow's; a Federation ship has no pain track to reduce."""
    err = _refused(battle(), "shadow.reduce_pain", {"ship": EXCALIBUR}, dice=[3])
    assert (err.field, err.message) == ("ship", "Excalibur is not a living ship: it has no pain track")


def test_SH_02_a_ship_dead_of_shock_stays_out_of_the_game_if_its_destruction_is_undone() -> None:
    """SH-02/GEN-04: pain 16 kills by shock, for good: a referee clearing the ship's destroyed mark
    does not bring it back to act."""
    state = at_impulse(level=14)
    state, _ = hit(state, 250)
    state, _ = end_impulse(state, [6, 1])  # pain 16: DEATH
    state, _ = act(state, "override.set", {"path": "ships.ker.destroyed", "value": False, "reason": "undo"})
    assert state.ships[KER].destroyed is False
    err = _refused(state, "shadow.plot_speed", {"ship": KER, "speed": 5}, actor=PLAYER)
    assert err.message == "Ker is destroyed and takes no further actions (GEN-04)"
