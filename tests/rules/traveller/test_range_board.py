"""The range board (TR-02, TR-02a, TR-10, TR-26; core rules' Range Table, tables.md §1b) through
apply_action with scripted dice: the referee places a pair, Thrust in the manoeuvre step moves it
when the step ends, and barrages, spinals and missiles fire at the board's band."""

from __future__ import annotations

import pytest

from app.rules.core import Actor, NotAllowed, RuleError
from app.rules.traveller.ranges import board_view, entry, resolve
from app.rules.traveller.ship import RangeEntry
from app.rules.views import Viewer, battle_view
from app.web.drawing.render import render as render_page
from tests.helpers import Elements, part_context, render_part
from tests.rules.traveller.helpers import (
    KESTREL_ACTOR,
    TIGRESS_ACTOR,
    act,
    advance_to,
    battle,
    beam_shot,
    capital,
    hg,
)
from tests.rules.traveller.test_order_effects import gig


def two_ships(**options: object):
    return battle(capital("Kestrel"), capital("Tigress"), owners=("p-kestrel", "p-tigress"), **options)


def place(state, band: str, reason: str = "set-up: the fleets meet at this range"):
    return act(
        state, "traveller.set_range", {"ship": "tigress", "other": "kestrel", "band": band, "reason": reason}
    )


def band(state) -> str | None:
    placed = entry(state, "kestrel", "tigress")
    return placed.band if placed else None


def thrust(state, actor, ship: str, other: str, amount: int, direction: str):
    payload = {"ship": ship, "thrust": amount, "target": other, "direction": direction}
    return act(state, "traveller.manoeuvre", payload, actor)


def test_TR_02_referee_places_a_pair_with_a_reason_logged_once_for_both_ships() -> None:
    state = two_ships()
    assert band(state) is None and not board_view(state)["placed"]
    done = place(state, "short")
    assert done.texts == [
        "⚠ OVERRIDE (Referee): range board Kestrel–Tigress off the board→Short — “set-up: the fleets meet at this range”"
    ]
    assert done.events[0].kind == "override" and done.events[0].data["reason"].startswith("set-up")
    # Stored once, on the first ship by id, and read the same both ways.
    assert hg(done.state, "kestrel")["ranges"] == {"tigress": {"band": "short", "progress": 0}}
    assert hg(done.state, "tigress")["ranges"] == {}
    assert entry(done.state, "tigress", "kestrel") == entry(done.state, "kestrel", "tigress")
    with pytest.raises(RuleError, match="band must be one of") as refused:
        act(
            done.state,
            "traveller.set_range",
            {"ship": "kestrel", "other": "tigress", "band": "near", "reason": "x y z"},
        )
    assert refused.value.field == "band"
    with pytest.raises(RuleError, match="two different ships"):
        act(
            done.state,
            "traveller.set_range",
            {"ship": "kestrel", "other": "kestrel", "band": "long", "reason": "abc"},
        )
    with pytest.raises(NotAllowed) as refused:  # a captain may not place the pair (doors: 403)
        act(
            done.state,
            "traveller.set_range",
            {**{"ship": "kestrel", "other": "tigress"}, "band": "long", "reason": "abc"},
            KESTREL_ACTOR,
        )
    assert refused.value.message == "only the referee may set a pair's range band"


def test_TR_02_range_start_option_places_every_pair() -> None:
    state = two_ships(range_start="long")
    assert band(state) == "long"
    assert board_view(state)["pairs"][0]["label"] == "Long"
    with pytest.raises(RuleError, match="starts every pair at a band") as refused:
        act(state, "traveller.set_range", {"ship": "kestrel", "other": "tigress", "reason": "take it off"})
    assert refused.value.field == "band"


def test_TR_02_manoeuvre_closing_thrust_moves_the_pair_when_the_step_ends() -> None:
    state = advance_to(place(two_ships(), "short").state, "manoeuvre").state
    done = thrust(state, KESTREL_ACTOR, "kestrel", "tigress", 2, "close")
    assert done.texts == [
        "Kestrel spends 2 Thrust: closes on Tigress (now Short, 2 to change band; settled when the manoeuvre"
        " step ends) (2 left this round)."
    ]
    assert band(done.state) == "short"  # not yet: the step has not ended
    assert board_view(done.state)["pairs"][0]["pending"] == "Kestrel closes 2"
    ended = advance_to(done.state, "combat")
    assert "Range board: Kestrel–Tigress Short → Close (Kestrel closes 2: net closing 2)." in ended.texts
    assert entry(ended.state, "kestrel", "tigress") == RangeEntry(band="close", progress=0)


def test_TR_02_both_ships_closing_add_and_an_escape_subtracts() -> None:
    state = advance_to(place(two_ships(), "medium").state, "manoeuvre").state
    state = thrust(state, KESTREL_ACTOR, "kestrel", "tigress", 3, "close").state
    state = thrust(state, TIGRESS_ACTOR, "tigress", "kestrel", 3, "close").state
    ended = advance_to(state, "combat")
    # 6 closing from Medium (5 to leave it): Short, with 1 of Short's 2 carried toward Close.
    assert (
        "Range board: Kestrel–Tigress Medium → Short (Kestrel closes 3, Tigress closes 3: net closing 6;"
        " 1 of 2 toward Close carried)."
    ) in ended.texts
    state = advance_to(ended.state, "manoeuvre", turn=2).state
    state = thrust(state, KESTREL_ACTOR, "kestrel", "tigress", 4, "close").state
    state = thrust(state, TIGRESS_ACTOR, "tigress", "kestrel", 4, "open").state
    ended = advance_to(state, "combat")
    # The chase cancels out: the carried 1 stays.
    assert (
        "Range board: Kestrel–Tigress stays Short (Kestrel closes 4, Tigress opens 4: net 0 + 1 carried closing;"
        " 1 of 2 toward Close carried)."
    ) in ended.texts
    assert entry(ended.state, "kestrel", "tigress") == RangeEntry(band="short", progress=-1)


def test_TR_02_thrust_carries_over_rounds_and_stops_at_the_board_end() -> None:
    assert resolve(RangeEntry(band="long"), -7) == (RangeEntry(band="long", progress=-7), ["long"], False)
    assert resolve(RangeEntry(band="long", progress=-7), -3) == (
        RangeEntry(band="medium"),
        ["long", "medium"],
        False,
    )
    # Several bands in one round: Close 1, then Adjacent; the rest is lost against the end.
    assert resolve(RangeEntry(band="short"), -6) == (
        RangeEntry(band="adjacent"),
        ["short", "close", "adjacent"],
        True,
    )
    assert resolve(RangeEntry(band="distant"), 120) == (
        RangeEntry(band="very_distant"),
        ["distant", "very_distant"],
        True,
    )
    assert resolve(RangeEntry(band="close", progress=-1), 1) == (RangeEntry(band="close"), ["close"], False)


def test_TR_02_manoeuvre_refusals_name_the_field() -> None:
    state = advance_to(two_ships(), "manoeuvre").state
    with pytest.raises(
        RuleError, match="not on the range board: the referee places the pair first"
    ) as refused:
        thrust(state, KESTREL_ACTOR, "kestrel", "tigress", 1, "close")
    assert refused.value.field == "target"
    state = place(state, "long").state
    with pytest.raises(RuleError, match="closes or opens") as refused:
        act(
            state, "traveller.manoeuvre", {"ship": "kestrel", "thrust": 1, "target": "tigress"}, KESTREL_ACTOR
        )
    assert refused.value.field == "direction"
    with pytest.raises(RuleError, match="or say what it does") as refused:
        act(state, "traveller.manoeuvre", {"ship": "kestrel", "thrust": 1}, KESTREL_ACTOR)
    assert refused.value.field == "description"
    with pytest.raises(RuleError, match="has 4 Thrust left") as refused:
        thrust(state, KESTREL_ACTOR, "kestrel", "tigress", 5, "close")
    assert refused.value.field == "thrust"
    # The old payload (a described manoeuvre the players settle) still works and moves nothing.
    done = act(
        state, "traveller.manoeuvre", {"ship": "kestrel", "thrust": 1, "description": "rolls"}, KESTREL_ACTOR
    )
    assert done.texts == ["Kestrel spends 1 Thrust: rolls (3 left this round)."]
    assert [e for e in advance_to(done.state, "combat").events if e.kind == "range"] == []


def test_TR_02_TR_06_barrage_takes_its_band_and_DM_from_the_board() -> None:
    state = advance_to(place(two_ships(), "long").state, "combat").state
    shot = {k: v for k, v in beam_shot().items() if k != "range"}
    done = act(state, "traveller.barrage", shot, KESTREL_ACTOR, [3, 4, 4])
    # Beam lasers read the Medium row: Long −2; the line names the band and its DM.
    assert done.texts[0].startswith(
        "barrage 20–Beam Laser–Long–1 at Tigress: 2D 7 + range −2 + FC +2 + Gunner +2 + (1 − armour 6) = 4"
        " → 25% → 5 damage"
    )
    assert done.events[0].data["range"] == "long"
    # A typed band that agrees is taken; one that disagrees is refused before any die.
    assert (
        act(state, "traveller.barrage", beam_shot(range="long"), KESTREL_ACTOR, [3, 4, 4]).texts == done.texts
    )
    with pytest.raises(RuleError, match="the range board has Kestrel–Tigress at Long, not Medium") as refused:
        act(state, "traveller.barrage", beam_shot(range="medium"), KESTREL_ACTOR)
    assert refused.value.field == "range"
    very_long = act(place(state, "very_long").state, "traveller.barrage", shot, KESTREL_ACTOR, [3, 4, 4])
    assert "–Very Long–1 at Tigress: 2D 7 + range −4 +" in very_long.texts[0]


def test_TR_02_pair_off_the_board_still_takes_a_typed_range_and_needs_one() -> None:
    state = advance_to(two_ships(), "combat").state
    assert (
        act(state, "traveller.barrage", beam_shot(), KESTREL_ACTOR, [3, 4, 4])
        .texts[0]
        .startswith("barrage 20–Beam Laser–Medium–1")
    )
    shot = {k: v for k, v in beam_shot().items() if k != "range"}
    with pytest.raises(
        RuleError, match="Kestrel–Tigress is not on the range board: name the range band"
    ) as refused:
        act(state, "traveller.barrage", shot, KESTREL_ACTOR)
    assert refused.value.field == "range"


def test_TR_02a_board_band_beyond_a_weapons_reach_is_refused() -> None:
    state = advance_to(place(two_ships(), "medium").state, "combat").state
    state.ships["kestrel"].parts["hg_ship"]["batteries"][0]["max_range"] = "short"
    shot = {k: v for k, v in beam_shot().items() if k != "range"}
    with pytest.raises(RuleError, match=r"no further than Short \(TR-02a\)"):
        act(state, "traveller.barrage", shot, KESTREL_ACTOR)
    state.ships["kestrel"].parts["hg_ship"]["batteries"][0]["max_range"] = None
    with pytest.raises(RuleError, match=r"cannot engage at Distant range \(TR-02\)"):
        act(place(state, "distant").state, "traveller.barrage", shot, KESTREL_ACTOR)


def test_TR_10_spinal_reads_the_board_band_with_the_close_penalty() -> None:
    spinal = {"type": "particle", "damage": 250, "name": "Particle Spinal"}
    state = battle(
        capital("Kestrel", spinal=spinal),
        capital("Tigress", hull_code="CP"),
        owners=("p-kestrel", "p-tigress"),
        orders=False,
    )
    state = advance_to(place(state, "close").state, "combat").state
    done = act(state, "traveller.spinal", {"ship": "kestrel", "target": "tigress"}, KESTREL_ACTOR, [3, 3])
    # Long row at Close −1, and −1 more for a spinal mount at Close (TR-02, TR-10).
    assert done.texts == [
        "spinal Particle Spinal at Tigress: 2D 6 + Formidable −6 + FC +2 + Gunner +2 + range −2 + size 0 = 2"
        " vs 8+ → failure (Effect −6) → miss"
    ]
    with pytest.raises(RuleError, match="at Close, not Long") as refused:
        act(
            state,
            "traveller.spinal",
            {"ship": "kestrel", "target": "tigress", "range": "long"},
            KESTREL_ACTOR,
        )
    assert refused.value.field == "range"


def test_TR_02_missiles_from_the_board_cannot_engage_at_close() -> None:
    kestrel = capital("Kestrel")
    state = battle(kestrel, gig(), owners=("p-kestrel", "p-gig"), enforce_loop=False)
    state = act(
        state, "traveller.set_range", {"ship": "gig", "other": "kestrel", "band": "close", "reason": "abc"}
    ).state
    state = advance_to(state, "combat").state
    gig_actor = Actor("p-gig", "player", frozenset({"gig"}))
    shot = {"ship": "gig", "battery": "missiles", "target": "kestrel", "missiles": 1}
    with pytest.raises(RuleError, match=r"Missile cannot engage at Close range \(TR-02\)"):
        act(state, "traveller.missile", shot, gig_actor)
    state = act(
        state, "traveller.set_range", {"ship": "gig", "other": "kestrel", "band": "distant", "reason": "abc"}
    ).state
    done = act(state, "traveller.missile", shot, gig_actor, [4, 4, 6, 5])
    assert done.texts[0].startswith(
        "Gig fires 1 Missile at Kestrel at Distant (individual attacks, TR-01): missile 1: accuracy 2D 8"
        " + Gunner +1 + range −2 + FC +1 = 8"
    )


def test_TR_26_board_and_thrust_show_nothing_of_unrevealed_orders() -> None:
    """Thrust goes to range changes only in the manoeuvre step, after the orders are revealed; a
    committed Maximum Speed (+1 Thrust) is not in anything another captain reads before that."""
    state = place(two_ships(orders=True), "long").state
    state = act(state, "traveller.initiative", {}, dice=[3, 3]).state
    before = battle_view(state, TIGRESS_ACTOR)
    order = {"ship": "kestrel", "orders": [{"order": "maximum_speed"}], "commit": True}
    state = act(state, "traveller.orders", order, KESTREL_ACTOR).state
    seen = battle_view(state, TIGRESS_ACTOR)["ships"]["kestrel"]["parts"]["hg_ship"]
    assert seen["thrust_left"] == before["ships"]["kestrel"]["parts"]["hg_ship"]["thrust_left"] == 4
    assert seen["ranges"] == {"tigress": {"band": "long", "progress": 0}}
    assert seen["round"]["orders"] == [] and seen["round"]["moves"] == {}
    with pytest.raises(RuleError) as refused:
        thrust(state, KESTREL_ACTOR, "kestrel", "tigress", 1, "close")
    assert type(refused.value) is RuleError  # the moment is wrong, not the captain (NotAllowed)
    assert refused.value.field == "ship"
    assert refused.value.message == "Thrust for range changes is spent in the manoeuvre step"
    state = act(
        state, "traveller.orders", {"ship": "tigress", "orders": [], "commit": True}, TIGRESS_ACTOR
    ).state
    state = advance_to(state, "manoeuvre").state
    seen = battle_view(state, TIGRESS_ACTOR)["ships"]["kestrel"]["parts"]["hg_ship"]
    assert seen["thrust_left"] == 5  # revealed: Maximum Speed's +1 now counts


def test_TR_25_a_launched_flight_starts_at_its_carriers_bands() -> None:
    flight = {
        "name": "Red Flight",
        "klass": "fighters",
        "system": "traveller",
        "parts": {
            "flight": {
                "craft_type": "Fighter",
                "craft": 10,
                "craft_hull": 1,
                "craft_structure": 1,
                "thrust": 6,
            }
        },
    }
    state = battle(
        capital("Kestrel"), capital("Tigress"), flight, owners=("p-kestrel", "p-tigress", "p-tigress")
    )
    state = place(state, "medium").state
    actor = Actor("p-tigress", "player", frozenset({"tigress", "red-flight"}))
    done = act(state, "traveller.launch", {"flight": "red-flight", "carrier": "tigress"}, actor)
    assert done.texts == [
        "Red Flight launches from Tigress. It starts on the range board at its carrier's bands (Adjacent to"
        " Tigress, Medium to Kestrel)."
    ]
    assert entry(done.state, "red-flight", "kestrel").band == "medium"  # type: ignore[union-attr]
    assert entry(done.state, "tigress", "red-flight").band == "adjacent"  # type: ignore[union-attr]


def render_sheet(state, ship: str, viewer: Viewer) -> str:
    return render_part(state, ship, "hg_ship", viewer, seq=3, dice_mode="server")[0]


def render_board(state, viewer: Viewer) -> tuple[str, Elements]:
    context = part_context(state, "kestrel", "hg_ship", viewer)
    html = render_page("partials/range_board.html", {**context, "range_board": state.game.range_board(state)})
    parsed = Elements()
    parsed.feed(html)
    return html, parsed


def test_TR_02_fire_forms_offer_the_boards_band_and_the_manoeuvre_form_names_the_pair() -> None:
    kestrel_view = Viewer("p-kestrel", "player", frozenset({"kestrel"}))
    state = advance_to(two_ships(), "manoeuvre").state
    html = render_sheet(state, "kestrel", kestrel_view)
    assert 'name="p.target"' not in html.split("tr-manoeuvre-form")[1].split("</form>")[0]  # off the board
    state = place(state, "short").state
    form = render_sheet(state, "kestrel", kestrel_view).split("tr-manoeuvre-form")[1].split("</form>")[0]
    assert '<option value="tigress">Tigress — Short (range board)</option>' in form
    assert (
        '<select name="p.direction"><option value="">—</option><option value="close">close</option>' in form
    )
    state = advance_to(state, "combat").state
    barrage = render_sheet(state, "kestrel", kestrel_view).split("tr-barrage-form")[1].split("</form>")[0]
    assert 'name="p.range"' not in barrage
    assert "Range: from the range board — Tigress Short." in barrage


def test_TR_02_the_board_chart_marks_each_pairs_band_for_every_viewer() -> None:
    state = advance_to(place(two_ships(), "medium").state, "manoeuvre").state
    state = thrust(state, KESTREL_ACTOR, "kestrel", "tigress", 3, "close").state
    spectator = Viewer("p-watch", "spectator", frozenset())
    html, parsed = render_board(state, spectator)
    pair = parsed.by_id["rb-kestrel--tigress"]
    assert pair["data-band"] == "medium"
    assert '<span class="rb-band">Medium</span> <small>(5 Thrust to change)</small>' in html
    assert (
        html.count('class="rb-cell rb-here"') == 1
        and 'title="Medium · 5 Thrust to change">●<span>Med' in html
    )
    assert "This round: Kestrel closes 3 (settled when the manoeuvre step ends)." in html
    assert "traveller.set_range" not in parsed.actions  # only the referee places pairs
    _, as_referee = render_board(state, Viewer("p-ref", "referee", frozenset()))
    assert as_referee.actions == ["traveller.set_range"]
    ended = advance_to(state, "combat").state
    html, parsed = render_board(ended, spectator)
    assert parsed.by_id["rb-kestrel--tigress"]["data-band"] == "medium"
    assert "3 of 5 toward Short carried." in html and "This round: Kestrel closes 3 (settled)." in html
