"""The referee's override picker (ux §6, GEN-03: the referee rules what the seeds leave open): each
value a part declares settable, in its own kind and within the range its model allows, read back
from what the referee types and refused in words on the value's path. The figures are the sample
ships' (Excelsior's Fore shield 40, ST-05; the Shadow's pain 0–16, SH-01) and the models' own
constraints written out here."""

from __future__ import annotations

from typing import Literal

import pytest
from pydantic import BaseModel, Field

from app.rules import new_battle
from app.rules.core import RuleError
from app.rules.overrides import Choice, _declared, choice_at, choices_for
from app.rules.ruleset import Settable
from tests.rules.startrek.helpers import add, definition

FORE = "ships.excelsior.parts.shields.projections.0.current"


def excelsior():
    return add(new_battle("b5wars"), definition("excelsior"))


def number(low=None, high=None, whole=True) -> Choice:
    return Choice("ships.x.parts.p.v", "x", "p", "Value", "number", 3, low, high, whole)


# --- what the picker offers ---------------------------------------------------------------------------


def test_ST_05_the_fore_shield_is_offered_from_0_to_its_rating_40():
    choice = choice_at(excelsior(), FORE)
    assert choice is not None
    assert (choice.label, choice.kind, choice.low, choice.high, choice.shown, choice.allowed) == (
        "Fore shield",
        "number",
        0,
        40,
        "40",
        "0 to 40",
    )


def test_GEN_03_the_ship_flags_come_first_as_yes_or_no():
    first = choices_for(excelsior(), "excelsior")[:2]
    assert [(c.label, c.kind, c.shown, c.allowed) for c in first] == [
        ("Destroyed", "toggle", "no", "yes or no"),
        ("Crippled", "toggle", "no", "yes or no"),
    ]


def test_GEN_03_a_path_the_picker_does_not_offer_has_no_choice():
    state = excelsior()
    assert choice_at(state, "ships.excelsior") is None  # too short to be a value
    assert choice_at(state, "clock.turn.x") is None  # not a ship's value
    assert choice_at(state, "ships.nobody.destroyed") is None  # no such ship
    assert choice_at(state, "ships.excelsior.name") is None  # a value no part declares


def test_GEN_03_a_part_the_game_does_not_know_offers_nothing():
    state = excelsior()
    ship = state.ships["excelsior"]
    ship.parts["mystery"] = {"value": 1}
    ship.parts["notes"] = "a part that is not a mapping"
    paths = [c.path for c in choices_for(state, "excelsior")]
    assert not [p for p in paths if ".mystery." in p or ".notes" in p]
    assert FORE in paths


# --- reading what the referee typed -------------------------------------------------------------------


def test_GEN_03_a_toggle_reads_yes_and_no_in_words():
    toggle = Choice("ships.x.destroyed", "x", "ship", "Destroyed", "toggle", False)
    assert [toggle.parse(t) for t in (" Yes ", "on", "1", "true")] == [True] * 4
    assert [toggle.parse(t) for t in ("NO", "off", "0", "false")] == [False] * 4
    with pytest.raises(RuleError) as err:
        toggle.parse("maybe")
    assert (err.value.field, err.value.message) == (
        "ships.x.destroyed",
        "Destroyed: answer yes or no (you sent 'maybe')",
    )
    assert (toggle.words(True), toggle.words(False), toggle.words(None)) == ("yes", "no", "not set")


def test_SH_06_a_choice_takes_only_its_options():
    reaction = Choice(
        "ships.k.parts.pain.reaction", "k", "pain", "Pain reaction", "choice", "ZERO", options=("ZERO", "ONE")
    )
    assert reaction.allowed == "one of ZERO, ONE"
    assert reaction.parse(" ONE ") == "ONE"
    with pytest.raises(RuleError) as err:
        reaction.parse("one")
    assert err.value.field == "ships.k.parts.pain.reaction"
    assert err.value.message == "Pain reaction: must be one of ZERO, ONE (you sent 'one')"
    assert reaction.shown == "ZERO"


def test_GEN_03_a_number_in_words_for_each_kind_of_range():
    assert number(0, 40).allowed == "0 to 40"
    assert number(0.0, 40.0).allowed == "0 to 40"  # a whole float reads without its .0
    assert number(low=1).allowed == "1 or more"
    assert number(high=6).allowed == "up to 6"
    assert number().allowed == "any number"
    assert number(0, 1, whole=False).words(0.5) == "0.5"
    assert number().words(2.0) == "2"


def test_GEN_03_a_whole_number_is_read_within_its_range():
    choice = number(0, 40)
    assert choice.parse("+12") == 12 and choice.parse("40.0") == 40 and choice.parse("-0") == 0
    for typed, words in (("12.5", "a whole number"), ("twelve", "a whole number"), ("1e3", "a whole number")):
        with pytest.raises(RuleError) as err:
            choice.parse(typed)
        assert err.value.message == f"Value: must be {words} (you sent {typed!r})"
        assert err.value.field == "ships.x.parts.p.v"
    for typed, shown in (("41", "41"), ("-1", "-1")):
        with pytest.raises(RuleError) as err:
            choice.parse(typed)
        assert err.value.message == f"Value: must be 0 to 40 (you sent {shown})"


def test_GEN_03_a_fraction_is_read_where_the_value_is_not_whole():
    choice = number(0, 1, whole=False)
    assert choice.parse("0.25") == 0.25
    assert choice.parse("1.0") == 1 and isinstance(choice.parse("1.0"), int)
    with pytest.raises(RuleError) as err:
        choice.parse("x")
    assert err.value.message == "Value: must be a number (you sent 'x')"
    with pytest.raises(RuleError) as err:
        choice.parse("1.5")
    assert err.value.message == "Value: must be 0 to 1 (you sent 1.5)"


# --- the kinds and ranges are the part models' own ----------------------------------------------------


class Box(BaseModel):
    name: str = "Box"
    hits: int = Field(default=0, gt=-1, lt=7)  # 0 … 6 as strict bounds
    ratio: float = Field(default=0.5, gt=0.0, lt=1.0)
    mode: Literal["off", "on"] = "off"
    note: str = ""
    cap: int | None = None
    either: int | str = 0


class Holder(BaseModel):
    boxes: list[Box] = Field(default_factory=list)
    inner: Box | None = None
    tags: list[str] = Field(default_factory=list)
    count: int = 0
    flag: bool | None = None


def declared(data, *settable: Settable):
    return _declared(Holder, data, settable, "ships.x.parts.p", "x", "p")


def test_GEN_03_strict_bounds_read_as_the_nearest_allowed_values():
    hits, ratio = declared(
        {"boxes": [Box().model_dump()]},
        Settable("boxes.*.hits", "{name} hits"),
        Settable("boxes.*.ratio", "{name} ratio"),
    )
    assert (hits.path, hits.label, hits.low, hits.high, hits.whole) == (
        "ships.x.parts.p.boxes.0.hits",
        "Box hits",
        0,
        6,
        True,
    )
    assert (ratio.low, ratio.high, ratio.whole) == (0.0, 1.0, False)


def test_GEN_03_a_literal_is_a_choice_and_an_optional_bool_a_toggle():
    mode, flag = declared(
        {"inner": Box().model_dump(), "flag": None}, Settable("inner.mode", "Mode"), Settable("flag", "Flag")
    )
    assert (mode.path, mode.kind, mode.options) == ("ships.x.parts.p.inner.mode", "choice", ("off", "on"))
    assert (flag.kind, flag.shown) == ("toggle", "not set")


def test_GEN_03_a_cap_narrows_the_range_and_a_missing_cap_offers_nothing():
    box = Box(cap=4).model_dump()
    (hits,) = declared(
        {"boxes": [box, Box().model_dump()]}, Settable("boxes.*.hits", "{name} hits", upto="cap")
    )
    assert (hits.path, hits.high) == ("ships.x.parts.p.boxes.0.hits", 4)  # the second box has no cap
    (count,) = declared({"count": 2, "cap": 9}, Settable("count", "Count", upto="cap"))
    assert (count.low, count.high) == (None, 9)  # no bound of its own: the cap is the top


def test_GEN_03_nothing_to_choose_when_the_cap_leaves_no_room():
    assert declared({"boxes": [Box(cap=0).model_dump()]}, Settable("boxes.*.hits", "h", upto="cap")) == []


def test_GEN_03_text_lists_and_unions_are_not_offered():
    data = {"boxes": [Box().model_dump()], "tags": ["a"], "inner": Box().model_dump(), "count": 1}
    assert (
        declared(
            data,
            Settable("boxes.*.note", "Note"),  # text
            Settable("boxes.*.either", "Either"),  # a union of two kinds
            Settable("tags.*", "Tag"),  # a list without a further place
            Settable("boxes.*", "Box"),  # whole items: only their values are offered
            Settable("tags.*.x", "Tag"),  # items that are not models
            Settable("count.x", "Deeper"),  # a number has no fields
            Settable("boxes.0", "Box"),  # a list's item by number is not a declared place
            Settable("missing.x", "Missing"),
        )
        == []
    )


def test_GEN_03_a_label_naming_a_field_the_item_lacks_reads_as_a_question_mark():
    (choice,) = declared({"count": 1}, Settable("count", "{colour} count"))
    assert choice.label == "? count"


def test_GEN_03_a_place_the_data_lacks_offers_nothing():
    assert declared({}, Settable("count", "Count")) == []
    assert declared({"boxes": "not a list"}, Settable("boxes.*.hits", "h")) == []
    assert declared({"inner": "not a mapping"}, Settable("inner.hits", "h")) == []


def test_GEN_03_each_choice_names_its_ship_group_and_current_value():
    state = excelsior()
    flags = choices_for(state, "excelsior")[:2]
    assert [(c.ship, c.group, c.current) for c in flags] == [("excelsior", "ship", False)] * 2
    fore = choice_at(state, FORE)
    assert (fore.ship, fore.group, fore.current) == ("excelsior", "shields", 40)
    output = choice_at(state, "ships.excelsior.parts.power.output")
    assert (output.group, output.low, output.high) == ("power", 0, 1000)  # ST-07: output 0 … 1000
    assert choice_at(state, "ships") is None


def test_GEN_03_a_number_out_of_range_is_refused_on_its_path():
    with pytest.raises(RuleError) as err:
        number(0, 40).parse("41")
    assert err.value.field == "ships.x.parts.p.v"


def test_GEN_03_a_choice_and_a_toggle_name_their_ship_and_group():
    mode, flag = declared(
        {"inner": Box().model_dump(), "flag": True}, Settable("inner.mode", "Mode"), Settable("flag", "Flag")
    )
    assert [(c.ship, c.group, c.label, c.current) for c in (mode, flag)] == [
        ("x", "p", "Mode", "off"),
        ("x", "p", "Flag", True),
    ]


def test_GEN_03_a_cap_above_the_fields_own_bound_leaves_the_bound():
    (hits,) = declared({"boxes": [Box(cap=9).model_dump()]}, Settable("boxes.*.hits", "h", upto="cap"))
    assert (hits.high, hits.group) == (6, "p")  # its own lt=7 holds, not the cap of 9


def test_GEN_03_an_item_without_its_cap_does_not_hide_the_next_ones():
    boxes = [Box().model_dump(), Box(cap=4).model_dump()]
    (hits,) = declared({"boxes": boxes}, Settable("boxes.*.hits", "h", upto="cap"))
    assert hits.path == "ships.x.parts.p.boxes.1.hits"
    assert declared({"inner": 3}, Settable("inner.hits", "h")) == []  # a number where a model belongs


def test_GEN_03_a_part_the_game_does_not_know_does_not_hide_the_parts_after_it():
    state = excelsior()
    ship = state.ships["excelsior"]
    ship.parts = {"mystery": {"value": 1}, **ship.parts}
    assert FORE in [c.path for c in choices_for(state, "excelsior")]
