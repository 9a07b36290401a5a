"""The parse-once memo's edges (app/rules/parsed.py), called as the rules core calls it: a part read
as another model is parsed afresh, a save outside an action keeps nothing, and the hand-over to the
action's copy drops what the copy cannot use."""

from __future__ import annotations

from pydantic import BaseModel

from app.rules.parsed import _ACTION, hand_over, parse_once, parsed, store
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


def test_the_hand_over_keeps_only_parses_the_copy_can_use() -> None:
    """A parse whose ship the copy lacks, or whose dict the ship no longer holds, is dropped; one
    whose dict the ship still holds serves the copy's equal dict."""
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
        copy = state.copy_deep()
        hand_over(state, copy)
        assert set(memo) == {("kestrel", "hg_ship")}
        assert memo[("kestrel", "hg_ship")] == (copy.ships["kestrel"].parts["hg_ship"], kept)
        assert memo[("kestrel", "hg_ship")][0] is not kestrel.parts["hg_ship"]


def test_the_hand_over_outside_an_action_does_nothing() -> None:
    state = battle(capital("Kestrel"))
    copy = state.copy_deep()
    hand_over(state, copy)
    assert _ACTION.get() is None and copy.ships["kestrel"].parts == state.ships["kestrel"].parts
