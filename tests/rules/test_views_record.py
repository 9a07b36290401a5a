"""What one viewer may see (the per-viewer views every door renders through): a participant's
ships, a ship in full for its commander and in its public view for others (ST-22: a cloaked ship's
position is hidden), a hidden log row's text for those who may not read it, and hidden rows opened
at the end where the rule says so (GEN-02's dice, ST-22's cloaked path). With the kernel's small
clauses: sides and commanders (SH-12's enemies), the step titles (GEN-01), a turn of N impulses."""

from __future__ import annotations

import pytest

from app.rules import STANDARD, new_battle
from app.rules.core import Actor, Event, RuleError
from app.rules.impulses import hexes_in_impulse, movement_chart, moves_in_impulse
from app.rules.state import Clock, Ship
from app.rules.views import battle_view, event_for, ship_view, viewer_for
from tests.rules.startrek.helpers import add, definition

KIRK = Actor("p-excelsior", "player", frozenset({"excelsior"}))
KOR = Actor("p-kor-vaq", "player", frozenset({"kor-vaq"}))


def two_ships():
    state = add(new_battle("b5wars", {"turn_limit": 5}), definition("excelsior"))
    return add(state, definition("klingon-bird-of-prey"), {"hex": "0505", "facing": 1})


def test_GEN_04_a_participant_acts_for_the_ships_they_command_now():
    viewer = viewer_for("p-kor-vaq", "player", two_ships())
    assert viewer == Actor("p-kor-vaq", "player", frozenset({"kor-vaq"}))
    assert viewer_for(None, "spectator", two_ships()) == Actor(None, "spectator", frozenset())


def test_ST_22_a_cloaked_ships_commander_sees_it_whole_and_others_its_public_view():
    state = two_ships()
    state.ships["kor-vaq"].parts["cloak"]["cloaked"] = True
    mine = ship_view(state, state.ships["kor-vaq"], KOR)
    theirs = ship_view(state, state.ships["kor-vaq"], KIRK)
    assert (mine["commanded"], mine["position_hidden"], mine["position"]["hex"]) == (True, True, "0505")
    assert (theirs["commanded"], theirs["position_hidden"], theirs["position"]) == (False, True, None)
    assert ship_view(state, state.ships["excelsior"], KIRK)["position_hidden"] is False


def test_GEN_01_the_battle_view_carries_the_system_clock_end_and_options():
    view = battle_view(two_ships(), KIRK)
    assert {k: view[k] for k in ("system", "finished", "options")} == {
        "system": "b5wars",
        "finished": False,
        "options": {"turn_limit": 5},
    }
    assert view["clock"] == {"turn": 1, "step": "ship_power", "impulse": None}
    assert list(view["ships"]) == ["excelsior", "kor-vaq"]


SECRET = Event(
    kind="power",
    ship="kor-vaq",
    visibility="owner",
    text="Kor'vaq buys 4 points",
    hidden_text="Kor'vaq buys power.",
)


def test_ST_07_a_hidden_row_reads_as_its_hidden_text_to_others_filed_under_its_ship():
    assert event_for(SECRET, KOR) == SECRET
    assert event_for(SECRET, KIRK) == Event(
        kind="power", ship="kor-vaq", visibility="public", text="Kor'vaq buys power."
    )
    unseen = Event(kind="power", ship="kor-vaq", visibility="owner", text="secret")
    assert event_for(unseen, KIRK) is None


def test_ST_22_a_row_the_rule_opens_at_the_end_is_read_whole_then():
    opened = Event(
        kind="move",
        ship="kor-vaq",
        visibility="owner",
        text="to 0606",
        hidden_text="A cloaked ship moves.",
        data={"reveal_at_end": True},
    )
    assert event_for(opened, KIRK, finished=True) == opened
    assert event_for(opened, KIRK, finished=False).text == "A cloaked ship moves."
    assert event_for(SECRET, KIRK, finished=True).text == "Kor'vaq buys power."  # not opened by the rule


def test_ST_07_a_row_belongs_to_whoever_commanded_the_ship_when_it_happened():
    then = Event(kind="power", ship="kor-vaq", visibility="owner", text="t", data={"commander": "p-old"})
    assert event_for(then, Actor("p-old", "player")) == then  # commanded it then, not now
    assert event_for(then, KOR) is None  # commands it now, not then
    nobody = Event(kind="power", ship="kor-vaq", visibility="owner", text="t", data={"commander": None})
    assert event_for(nobody, Actor(None, "spectator")) is None


def test_SH_12_ships_with_sides_oppose_by_side_else_by_commander():
    def ship(sid, side, owner):
        return Ship(id=sid, name=sid, klass="t", system="sfb", side=side, owner=owner)

    assert ship("a", "Shadows", "p-1").opposes(ship("b", "", "p-1")) is False  # one sideless: same commander
    assert ship("a", "Shadows", "p-1").opposes(ship("b", "", "p-2")) is True
    assert ship("a", "Shadows", "p-1").opposes(ship("b", "Shadows", "p-2")) is False


def test_GEN_04_a_ship_not_in_the_battle_is_refused_on_the_ship_field():
    with pytest.raises(RuleError) as err:
        two_ships().ship("nobody")
    assert err.value.field == "ship"


def test_GEN_01_a_step_is_titled_with_its_repeat_only_where_it_repeats():
    b5, sfb = STANDARD.game("b5wars").system, STANDARD.game("sfb").system
    assert (
        b5.step(Clock(turn=1, step="ship_power")).title(Clock(turn=1, step="ship_power", impulse=3))
        == "Ship Power"
    )
    impulse = sfb.step(Clock(turn=1, step="impulse", impulse=7))
    assert impulse.title(Clock(turn=1, step="impulse", impulse=7)) == "Impulse 7/32"
    assert b5.where("impulse_end") == "Ship Power or Combat or Adjust Ship Systems"


def test_GEN_01_a_turn_of_other_lengths_spreads_the_speed_over_its_impulses():
    assert movement_chart(2, 4) == [0, 1, 0, 1]
    assert movement_chart(3, 1) == [3]  # a turn of one impulse moves the whole speed in it
    assert (moves_in_impulse(2, 1, 4), moves_in_impulse(2, 2, 4)) == (False, True)
    with pytest.raises(ValueError, match="^impulse 5 is not 1–4$"):
        hexes_in_impulse(2, 5, 4)


def test_ST_16_every_known_part_is_read_in_every_battle():
    """A Shadow's First One trait (ST-16, a Star Trek ruleset part) rides in an SFB battle, which does not
    play that ruleset: validated and shown, never acted on."""
    sfb = STANDARD.game("sfb")
    assert "first_one" in sfb.parts and "shields" in sfb.parts
    assert "startrek.cloak" not in sfb.actions


def test_GEN_01_the_logs_time_stamp_names_turn_step_and_impulse():
    sfb, b5 = STANDARD.game("sfb").system, STANDARD.game("b5wars").system
    assert sfb.short(Clock(turn=4, step="impulse", impulse=17)) == "T4 I17"
    assert b5.short(Clock(turn=2, step="ship_power")) == "T2 Power"


def test_GEN_01_a_server_may_add_a_system_or_a_ruleset_to_the_standard_rules():
    from dataclasses import replace

    from app.rules.registry import GENERIC, SFB

    drill = STANDARD.with_system(replace(SFB, key="drill", name="Drill"))
    assert drill.names()["drill"] == "Drill" and drill.names()["sfb"] == "Star Fleet Battles (impulses)"
    assert drill.game("drill").system.name == "Drill"
    extra = STANDARD.with_ruleset(replace(GENERIC, key="extra", name="Extra", hooks=()))
    assert "extra" in extra.rulesets and "generic" in extra.rulesets
    assert list(extra.names()) == list(STANDARD.names())


def test_ST_22_no_bearing_from_the_map_while_either_ship_is_cloaked():
    """The Kor'vaq two hexes off the Excelsior's port side (facing 1) is at 270° from its nose; once
    either ship is cloaked its counter is off the board and the map gives no bearing."""
    from app.rules.attack import DamageEntry, map_bearing

    state = add(new_battle("b5wars"), definition("excelsior"), {"hex": "0505", "facing": 1})
    state = add(state, definition("klingon-bird-of-prey"), {"hex": "0305", "facing": 1})
    entry = DamageEntry(target="excelsior", source="kor-vaq", amount=5)
    assert map_bearing(state, entry) == 270.0
    state.ships["kor-vaq"].parts["cloak"]["cloaked"] = True
    assert map_bearing(state, entry) is None
