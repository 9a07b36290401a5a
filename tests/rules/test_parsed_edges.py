"""The parse-once memo's edges (app/rules/parsed.py), called as the rules core calls it: a part read
as another model is parsed afresh, a save outside an action keeps nothing, and the handler's copy
shares only the parses it can use."""

from __future__ import annotations

from pydantic import BaseModel

from app.rules.parsed import _ACTION, copy_for_handler, parse_once, parsed, store
from app.rules.shadow.track import PainTrack
from app.rules.state import Ship
from tests.rules.test_parsed import shadow
from tests.rules.traveller.helpers import battle, capital


class LevelOnly(BaseModel):
    """Another reading of the same dict: the memo must not hand it a PainTrack."""

    level: int = 0


class HullCode(BaseModel):
    """A small reading of a High Guard part, enough to be kept by the memo."""

    hull_code: str


def test_a_part_read_as_another_model_is_parsed_as_that_model() -> None:
    ship = shadow()
    with parse_once():
        track = parsed(ship, "pain", PainTrack)
        other = parsed(ship, "pain", LevelOnly)
        assert isinstance(other, LevelOnly) and other.level == 3
        assert parsed(ship, "pain", LevelOnly) is other  # and that parse is the one kept now
        assert parsed(ship, "pain", PainTrack) is not track


def test_a_save_outside_an_action_writes_the_part_and_keeps_no_model() -> None:
    ship = shadow()
    track = PainTrack(level=6)
    store(ship, "pain", track)
    assert ship.parts["pain"]["level"] == 6 and _ACTION.get() is None
    again = parsed(ship, "pain", PainTrack)
    assert again is not track and again is not None and again.level == 6


def test_the_handlers_copy_shares_only_parses_it_can_use() -> None:
    """A parse whose ship the state lacks, or whose dict the ship no longer holds, is dropped and
    that part copied; one whose dict the ship still holds is shared with the copy, model and all."""
    state = battle(capital("Kestrel"), capital("Tigress"))
    gone = Ship(id="gone", name="Gone", system="traveller", parts={"pain": {"level": 1}})
    with parse_once():
        memo = _ACTION.get()
        assert memo is not None
        kestrel, tigress = state.ships["kestrel"], state.ships["tigress"]
        kept = parsed(kestrel, "hg_ship", HullCode)
        parsed(tigress, "hg_ship", HullCode)
        parsed(gone, "pain", PainTrack)
        tigress.parts["hg_ship"] = dict(tigress.parts["hg_ship"])  # rewritten since it was read
        copy = copy_for_handler(state)
        assert set(memo) == {("kestrel", "hg_ship")}
        assert copy.ships["kestrel"].parts["hg_ship"] is kestrel.parts["hg_ship"]
        assert parsed(copy.ships["kestrel"], "hg_ship", HullCode) is kept
        assert copy.ships["tigress"].parts["hg_ship"] == tigress.parts["hg_ship"]
        assert copy.ships["tigress"].parts["hg_ship"] is not tigress.parts["hg_ship"]


def test_the_handlers_copy_outside_an_action_is_a_whole_copy() -> None:
    state = battle(capital("Kestrel"))
    copy = copy_for_handler(state)
    assert _ACTION.get() is None and copy.ships["kestrel"].parts == state.ships["kestrel"].parts
    assert copy.ships["kestrel"].parts["hg_ship"] is not state.ships["kestrel"].parts["hg_ship"]
