"""A part is parsed once per action (app/rules/parsed.py): the memo returns the model parsed from the
very dict a ship still holds, takes a save's model as the parse of what it wrote, parses a part
written since afresh, and keeps nothing outside the action."""

from __future__ import annotations

from typing import Any

import pytest

from app.rules.parsed import copy_for_handler, parse_once, parsed, store
from app.rules.shadow.track import PainTrack
from app.rules.state import Ship
from app.rules.traveller.ship import HgShip
from tests.rules.traveller.helpers import act, advance_to, battle, beam_shot, capital, section


def shadow() -> Ship:
    return Ship(id="s", name="Shadow", system="b5wars", parts={"pain": {"level": 3}})


def test_inside_an_action_the_same_dict_gives_the_same_model() -> None:
    ship = shadow()
    with parse_once():
        first = parsed(ship, "pain", PainTrack)
        assert first is not None and first.level == 3
        assert parsed(ship, "pain", PainTrack) is first


def test_a_saved_model_is_the_parse_of_what_it_wrote() -> None:
    ship = shadow()
    with parse_once():
        track = parsed(ship, "pain", PainTrack)
        assert track is not None
        track.level = 5
        store(ship, "pain", track)
        assert ship.parts["pain"]["level"] == 5
        assert parsed(ship, "pain", PainTrack) is track


def test_a_part_written_as_a_new_dict_is_parsed_afresh() -> None:
    ship = shadow()
    with parse_once():
        first = parsed(ship, "pain", PainTrack)
        ship.parts["pain"] = {**ship.parts["pain"], "level": 7}
        again = parsed(ship, "pain", PainTrack)
        assert again is not first and again is not None and again.level == 7


def test_outside_an_action_every_read_parses() -> None:
    ship = shadow()
    first = parsed(ship, "pain", PainTrack)
    assert parsed(ship, "pain", PainTrack) is not first
    ship.parts["pain"]["level"] = 9  # a dict changed in place between actions is read as it is now
    again = parsed(ship, "pain", PainTrack)
    assert again is not None and again.level == 9
    assert parsed(ship, "nothing", PainTrack) is None


def test_TR_05_a_barrage_parses_each_ship_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The gate, the combat loop, escorts and the readiness check after the barrage all read both
    ships; each High Guard part is parsed once in the action (the numbers are test_barrage's)."""
    state = advance_to(battle(capital("Kestrel"), capital("Tigress")), "combat").state
    parses: list[Any] = []
    plain = HgShip.model_validate

    def counted(raw: Any, **kwargs: Any) -> HgShip:
        parses.append(raw)
        return plain(raw, **kwargs)

    monkeypatch.setattr(HgShip, "model_validate", counted)
    done = act(state, "traveller.barrage", beam_shot(), dice=[3, 4, 4])  # 15 damage, location Main
    assert len(parses) == 2
    assert section(done.state, "tigress", "Main")["hull"] == 58
    assert section(done.state, "tigress", "Forward")["hull"] == 59


def test_TR_05_the_handlers_copy_shares_only_the_parts_the_gate_parsed() -> None:
    """The gate parses both ships; the handler's copy holds those very part dicts (and their
    models), everything else of the state is its own; the barrage then writes new dicts, so the
    state it was given reads as before (the numbers are test_barrage's)."""
    state = advance_to(battle(capital("Kestrel"), capital("Tigress")), "combat").state
    before = state.model_dump()
    with parse_once():
        for ship in state.ships.values():
            parsed(ship, "hg_ship", HgShip)
        state.ships["kestrel"].parts["note"] = {"kept": "apart"}
        copy = copy_for_handler(state)
        for sid, ship in state.ships.items():
            assert copy.ships[sid].parts["hg_ship"] is ship.parts["hg_ship"]
            assert copy.ships[sid] is not ship
        assert copy.ships["kestrel"].parts["note"] == {"kept": "apart"}
        assert copy.ships["kestrel"].parts["note"] is not state.ships["kestrel"].parts["note"]
        assert parsed(copy.ships["tigress"], "hg_ship", HgShip) is parsed(
            state.ships["tigress"], "hg_ship", HgShip
        )
    del state.ships["kestrel"].parts["note"]
    done = act(state, "traveller.barrage", beam_shot(), dice=[3, 4, 4])  # 15 damage, location Main
    assert section(done.state, "tigress", "Main")["hull"] == 58
    assert state.model_dump() == before


def test_the_handlers_copy_keeps_each_ships_parts_in_their_order() -> None:
    """A shared part goes back in its own place, not at the end: the parts' order is the order a
    ship card draws them in and the stored state's, so an action must not reshuffle them."""
    state = advance_to(battle(capital("Kestrel"), capital("Tigress")), "combat").state
    kestrel = state.ships["kestrel"]
    kestrel.parts = {"note": {"kept": "first"}, **kestrel.parts, "last": {"kept": "last"}}
    order = list(kestrel.parts)
    with parse_once():
        parsed(kestrel, "hg_ship", HgShip)
        copy = copy_for_handler(state)
    assert list(copy.ships["kestrel"].parts) == order
    assert copy.ships["kestrel"].parts["hg_ship"] is kestrel.parts["hg_ship"]
    done = act(state, "traveller.barrage", beam_shot(), dice=[3, 4, 4])  # TR-05: the numbers above
    assert list(done.state.ships["kestrel"].parts) == order
