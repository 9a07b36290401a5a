"""The range board as the log, the referee and the chart keep it (TR-02, TR-25, GEN-03): band changes
from the core rules' Range Table (tables.md §1b: Thrust to change band Adjacent 1, Close 1, Short 2,
Medium 5, Long 10, Very Long 25, Distant 50; Very Distant 50 by Decision), what carries toward the
next change, the board's two ends, the settled pair's event, the referee's placing and every refusal
on its field."""

from __future__ import annotations

from typing import Any

import pytest

from app.rules.core import RuleError
from app.rules.state import BattleState
from app.rules.traveller.ranges import board_view, carried_text, entry, launch_ranges, resolve
from app.rules.traveller.ship import RangeEntry
from tests.rules.traveller.helpers import KESTREL_ACTOR, act, advance_to, battle, capital
from tests.rules.traveller.test_branches_actions import HULK
from tests.rules.traveller.test_clauses import red_flight


def ships(*names: str, **options: Any) -> BattleState:
    return battle(*(capital(n) for n in names), **options)


def place(state: BattleState, a: str, b: str, band: str | None, reason: str = "set-up") -> Any:
    return act(state, "traveller.set_range", {"ship": a, "other": b, "band": band, "reason": reason})


def refusal(
    state: BattleState, kind: str, payload: dict[str, Any], actor: Any = None
) -> tuple[str, str | None]:
    with pytest.raises(RuleError) as refused:
        act(state, kind, payload) if actor is None else act(state, kind, payload, actor)
    return refused.value.message, refused.value.field


# --- resolve: the band changes and the board's ends --------------------------------------------------


def test_TR_02_thrust_short_of_the_bands_cost_is_carried() -> None:
    assert resolve(RangeEntry(band="medium"), 3) == (RangeEntry(band="medium", progress=3), ["medium"], False)


def test_TR_02_one_thrust_opening_leaves_close() -> None:
    assert resolve(RangeEntry(band="close"), 1) == (RangeEntry(band="short"), ["close", "short"], False)


def test_TR_02_no_thrust_at_either_end_is_not_stuck() -> None:
    assert resolve(RangeEntry(band="adjacent"), 0) == (RangeEntry(band="adjacent"), ["adjacent"], False)
    assert resolve(RangeEntry(band="very_distant"), 0) == (
        RangeEntry(band="very_distant"),
        ["very_distant"],
        False,
    )


def test_TR_02_closing_from_very_distant_carries_and_opening_past_it_is_lost() -> None:
    assert resolve(RangeEntry(band="very_distant"), -10) == (
        RangeEntry(band="very_distant", progress=-10),
        ["very_distant"],
        False,
    )
    assert resolve(RangeEntry(band="very_distant"), 1) == (
        RangeEntry(band="very_distant"),
        ["very_distant"],
        True,
    )


def test_TR_02_carried_thrust_is_written_toward_the_band_it_leads_to() -> None:
    assert carried_text(RangeEntry(band="medium", progress=1)) == "1 of 5 toward Long carried"
    assert carried_text(RangeEntry(band="medium", progress=3)) == "3 of 5 toward Long carried"
    assert carried_text(RangeEntry(band="medium", progress=-3)) == "3 of 5 toward Short carried"


# --- the manoeuvre step's end ---------------------------------------------------------------------------


def manoeuvre(state: BattleState, ship: str, other: str, thrust: int, direction: str) -> BattleState:
    payload = {"ship": ship, "thrust": thrust, "target": other, "direction": direction}
    return act(state, "traveller.manoeuvre", payload).state


def settled(state: BattleState) -> list[Any]:
    """The range events of the manoeuvre step's end."""
    return [e for e in advance_to(state, "combat").events if e.kind == "range"]


def kestrel_moves(band: str, thrust: int, direction: str) -> list[Any]:
    """Kestrel–Tigress placed at `band`; Kestrel spends `thrust` on the pair; the step ends."""
    state = place(ships("Kestrel", "Tigress"), "kestrel", "tigress", band).state
    state = manoeuvre(advance_to(state, "manoeuvre").state, "kestrel", "tigress", thrust, direction)
    return settled(state)


def test_TR_02_an_opening_of_1_is_logged_with_its_event_data() -> None:
    assert [(e.kind, e.text, e.data) for e in kestrel_moves("close", 1, "open")] == [
        (
            "range",
            "Range board: Kestrel–Tigress Close → Short (Kestrel opens 1: net opening 1).",
            {"pair": ["kestrel", "tigress"], "from": "close", "band": "short", "progress": 0},
        )
    ]


def test_TR_02_thrust_carried_opening_is_named_so() -> None:
    state = place(ships("Kestrel", "Tigress"), "kestrel", "tigress", "medium").state
    part = state.ships["kestrel"].parts["hg_ship"]
    state.ships["kestrel"].parts = {
        "hg_ship": {**part, "ranges": {"tigress": {"band": "medium", "progress": 1}}}
    }
    state = advance_to(state, "manoeuvre").state
    state = manoeuvre(state, "kestrel", "tigress", 1, "open")
    assert settled(state)[0].text == (
        "Range board: Kestrel–Tigress stays Medium (Kestrel opens 1: net opening 1 + 1 carried opening;"
        " 2 of 5 toward Long carried)."
    )


def test_TR_02_thrust_lost_against_the_boards_end_is_noted() -> None:
    assert kestrel_moves("adjacent", 2, "close")[0].text == (
        "Range board: Kestrel–Tigress stays Adjacent (Kestrel closes 2: net closing 2; no band beyond the board's end)."
    )


def test_TR_02_a_pair_taken_off_the_board_after_its_thrust_still_lets_the_next_pair_move() -> None:
    state = ships("Kestrel", "Tigress", "Vixen")
    state = place(state, "kestrel", "tigress", "short").state
    state = place(state, "kestrel", "vixen", "short").state
    state = advance_to(state, "manoeuvre").state
    state = manoeuvre(state, "kestrel", "tigress", 1, "close")
    state = manoeuvre(state, "kestrel", "vixen", 2, "close")
    state = place(state, "kestrel", "tigress", None, "the fleets lose each other").state
    assert [e.data["pair"] for e in settled(state)] == [["kestrel", "vixen"]]


# --- placing pairs --------------------------------------------------------------------------------------


def test_TR_02_a_second_pair_on_the_same_ship_keeps_the_first() -> None:
    state = place(ships("Kestrel", "Tigress", "Vixen"), "kestrel", "tigress", "long").state
    state = place(state, "kestrel", "vixen", "short").state
    assert entry(state, "kestrel", "tigress") == RangeEntry(band="long")
    assert entry(state, "vixen", "kestrel") == RangeEntry(band="short")


def test_TR_02_the_referees_move_of_a_placed_pair_is_logged_from_its_band() -> None:
    state = place(ships("Kestrel", "Tigress"), "kestrel", "tigress", "long").state
    done = place(state, "tigress", "kestrel", "medium", "they turned toward each other")
    assert [(e.kind, e.text, e.data) for e in done.events] == [
        (
            "override",
            "⚠ OVERRIDE (Referee): range board Kestrel–Tigress Long→Medium — “they turned toward each other”",
            {
                "path": "range_board.kestrel.tigress",
                "old": "long",
                "new": "medium",
                "reason": "they turned toward each other",
            },
        )
    ]


def test_TR_02_an_unknown_starting_band_places_no_pair() -> None:
    assert entry(ships("Kestrel", "Tigress", range_start="warp"), "kestrel", "tigress") is None


@pytest.mark.parametrize(
    ("other", "band", "message", "field"),
    [
        ("nowhere", "long", "no ship 'nowhere' in this battle", "other"),
        ("kestrel", "long", "a range band is between two different ships", "other"),
        ("hulk", "long", "Hulk is not a High Guard ship or flight", "other"),
        (
            "tigress",
            "warp",
            "band must be one of adjacent, close, short, medium, long, very_long, distant, very_distant",
            "band",
        ),
    ],
)
def test_TR_02_the_referees_refusals_name_their_field(
    other: str, band: str, message: str, field: str
) -> None:
    state = battle(capital("Kestrel"), capital("Tigress"), HULK)
    payload = {"ship": "kestrel", "other": other, "band": band, "reason": "set-up"}
    assert refusal(state, "traveller.set_range", payload) == (message, field)


def test_TR_02_a_battle_with_a_starting_band_refuses_taking_a_pair_off() -> None:
    payload = {"ship": "kestrel", "other": "tigress", "band": None, "reason": "off"}
    assert refusal(ships("Kestrel", "Tigress", range_start="long"), "traveller.set_range", payload) == (
        "this battle starts every pair at a band: give one",
        "band",
    )


# --- allocating Thrust and firing at the board's band ------------------------------------------------


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("kestrel", "a ship changes its range to another ship, not to itself"),
        ("hulk", "Hulk is not a High Guard ship or flight still in the fight"),
    ],
)
def test_TR_02_thrust_toward_no_other_fighting_ship_is_refused_on_the_target(
    target: str, message: str
) -> None:
    state = advance_to(
        battle(capital("Kestrel"), capital("Tigress"), HULK, owners=("p-kestrel",)), "manoeuvre"
    ).state
    payload = {"ship": "kestrel", "thrust": 1, "target": target, "direction": "close"}
    assert refusal(state, "traveller.manoeuvre", payload, KESTREL_ACTOR) == (message, "target")


def test_TR_02_thrust_toward_an_unknown_ship_is_refused_on_the_target() -> None:
    state = advance_to(battle(capital("Kestrel"), owners=("p-kestrel",)), "manoeuvre").state
    payload = {"ship": "kestrel", "thrust": 1, "target": "nowhere", "direction": "close"}
    assert refusal(state, "traveller.manoeuvre", payload, KESTREL_ACTOR) == (
        "no ship 'nowhere' in this battle",
        "target",
    )


def test_TR_02_opening_thrust_is_described_as_opening() -> None:
    state = place(
        battle(capital("Kestrel"), capital("Tigress"), owners=("p-kestrel",)), "kestrel", "tigress", "long"
    )
    state = advance_to(state.state, "manoeuvre").state
    payload = {"ship": "kestrel", "thrust": 2, "target": "tigress", "direction": "open"}
    assert act(state, "traveller.manoeuvre", payload, KESTREL_ACTOR).texts == [
        "Kestrel spends 2 Thrust: opens from Tigress (now Long, 10 to change band; settled when the manoeuvre"
        " step ends) (2 left this round)."
    ]


def test_TR_02_a_typed_range_is_refused_on_the_range_field() -> None:
    state = advance_to(
        place(ships("Kestrel", "Tigress", orders=False), "kestrel", "tigress", "long").state, "combat"
    )
    shot = {"ship": "kestrel", "battery": "beam", "mounts": 20, "target": "tigress", "adjacent": "fore"}
    assert refusal(state.state, "traveller.barrage", {**shot, "range": "far"})[1] == "range"
    assert refusal(state.state, "traveller.barrage", {**shot, "range": "short"}) == (
        "the range board has Kestrel–Tigress at Long, not Short: fire at the board's band (or leave the range out)",
        "range",
    )


# --- a flight's launch and the chart ---------------------------------------------------------------------


def test_TR_25_a_launched_flight_takes_only_the_bands_its_carrier_has() -> None:
    flight = red_flight()
    state = battle(capital("Alpha"), capital("Kestrel"), capital("Tigress"), flight)
    state = place(state, "kestrel", "tigress", "long").state
    text = launch_ranges(state, state.ships["red-flight"], state.ships["kestrel"])
    assert text == "Adjacent to Kestrel, Long to Tigress"
    assert entry(state, "red-flight", "alpha") is None
    assert entry(state, "red-flight", "tigress") == RangeEntry(band="long")


def test_TR_02_the_chart_names_each_pair_its_ships_and_the_start() -> None:
    state = place(ships("Kestrel", "Tigress", "Vixen"), "kestrel", "tigress", "long").state
    view = board_view(state)
    assert view["ships"] == [
        {"id": "kestrel", "name": "Kestrel"},
        {"id": "tigress", "name": "Tigress"},
        {"id": "vixen", "name": "Vixen"},
    ]
    first, off = view["pairs"][0], view["pairs"][1]
    assert (first["a"], first["b"], first["carried"], first["net"]) == (
        {"id": "kestrel", "name": "Kestrel"},
        {"id": "tigress", "name": "Tigress"},
        "",
        0,
    )
    assert (off["b"], off["label"], off["carried"], off["cost"]) == (
        {"id": "vixen", "name": "Vixen"},
        "off the board",
        "",
        None,
    )
    assert view["start"] is None
    assert board_view(ships("Kestrel", "Tigress", range_start="short"))["start"] == "short"


def test_TR_02_a_ship_without_high_guard_data_has_no_place_on_the_board_whichever_sorts_first() -> None:
    """The board holds pairs of High Guard units only: a drifting wreck with no High Guard data gets
    no band from the battle's start, whether its id sorts before the capital ship's (the Hulk) or
    after it (the Zulu wreck)."""
    for wreck in (HULK, {**HULK, "name": "Zulu"}):
        state = battle(capital("Kestrel"), wreck, range_start="long")
        other = "hulk" if wreck is HULK else "zulu"
        assert entry(state, "kestrel", other) is None
        assert entry(state, other, "kestrel") is None
    assert entry(ships("Kestrel", "Tigress", range_start="long"), "tigress", "kestrel") == RangeEntry(
        band="long"
    )
