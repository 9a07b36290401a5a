"""What "done" means in a High Guard round's ordered steps (TR-03, TR-04, TR-26): in the orders step
a captain's done commits each of its ships' drafts as saved (the last commit reveals them all); in
the combat step it passes the ship the loop names; elsewhere the step keeps its plain mark. The
initiatives are 1d6 + Crew Skill +2 (an Experienced crew, tables.md) and the order costs tables.md
§4's (Screens to Full! 4, Angle for Maximum Effect 2)."""

from __future__ import annotations

from app.rules.core import REFEREE, Actor
from app.rules.dice import ScriptedDice
from app.rules.state import BattleState
from app.rules.systems.traveller import TRAVELLER
from app.rules.traveller.turns import on_ready, turn_order
from tests.rules.traveller.helpers import KESTREL_ACTOR, TIGRESS_ACTOR, act, battle, capital, hg

ORDERS_STEP, COMBAT, SHIP_ACTION = TRAVELLER.steps[0], TRAVELLER.steps[2], TRAVELLER.steps[3]
TWO_SHIPS = Actor("p-kestrel", "player", frozenset({"kestrel", "vixen"}))


def rolled(*, orders: bool = True) -> BattleState:
    """Kestrel 1d6 3 + 2 = 5, Tigress 5 + 2 = 7, Vixen 1 + 2 = 3 (TR-03, rolled in ship-id order)."""
    state = battle(
        capital("Kestrel"),
        capital("Tigress"),
        capital("Vixen"),
        owners=("p-kestrel", "p-tigress", "p-kestrel"),
        orders=orders,
    )
    return act(state, "traveller.initiative", {}, dice=[3, 5, 1]).state


def draft(state: BattleState, ship: str, actor: Actor, *orders: dict) -> BattleState:
    return act(state, "traveller.orders", {"ship": ship, "orders": list(orders)}, actor).state


def test_TR_26_done_in_the_orders_step_commits_the_draft_as_saved() -> None:
    state = draft(rolled(), "kestrel", KESTREL_ACTOR, {"order": "screens_full"})
    events = on_ready(state, KESTREL_ACTOR, ORDERS_STEP, ScriptedDice([]))
    assert [(e.kind, e.ship, e.text) for e in events] == [
        ("orders_committed", "kestrel", "Kestrel commits its orders: Screens to Full! (cost 4).")
    ]
    round_ = hg(state, "kestrel")["round"]
    assert round_["committed"] is True and [o["order"] for o in round_["orders"]] == ["screens_full"]
    assert hg(state, "tigress")["round"]["committed"] is False


def test_TR_26_done_commits_every_ship_of_the_captain_in_ship_id_order() -> None:
    state = draft(rolled(), "vixen", TWO_SHIPS, {"order": "angle_max_effect"})
    events = on_ready(state, TWO_SHIPS, ORDERS_STEP, ScriptedDice([]))
    assert [e.text for e in events] == [
        "Kestrel commits its orders: no orders (cost 0).",
        "Vixen commits its orders: Angle for Maximum Effect (cost 2).",
    ]


def test_TR_26_the_last_captain_done_reveals_every_order() -> None:
    state = draft(rolled(), "kestrel", KESTREL_ACTOR, {"order": "screens_full"})
    on_ready(state, TWO_SHIPS, ORDERS_STEP, ScriptedDice([]))
    events = on_ready(state, TIGRESS_ACTOR, ORDERS_STEP, ScriptedDice([]))
    assert [(e.kind, e.text) for e in events] == [
        ("orders_committed", "Tigress commits its orders: no orders (cost 0)."),
        (
            "orders_revealed",
            "Every captain has committed; orders revealed: Kestrel: Screens to Full! — initiative 5 → 1;"
            " Tigress: no orders — initiative 7 → 7; Vixen: no orders — initiative 3 → 3.",
        ),
    ]


def test_TR_26_the_referees_done_commits_every_captains_draft() -> None:
    state = draft(rolled(), "tigress", TIGRESS_ACTOR, {"order": "screens_full"})
    events = on_ready(state, REFEREE, ORDERS_STEP, ScriptedDice([]))
    assert [e.kind for e in events] == ["orders_committed"] * 3 + ["orders_revealed"]
    assert events[1].text == "Tigress commits its orders: Screens to Full! (cost 4)."


def test_TR_04_done_in_the_combat_step_passes_the_ship_whose_turn_it_is() -> None:
    state = rolled(orders=False)
    state.clock.step = "combat"
    assert turn_order(state, COMBAT) == ["tigress", "kestrel", "vixen"]
    events = on_ready(state, TIGRESS_ACTOR, COMBAT, ScriptedDice([]))
    assert [(e.kind, e.ship, e.text) for e in events] == [
        ("loop", "tigress", "Tigress has finished its combat actions this round. Next: Kestrel.")
    ]
    assert turn_order(state, COMBAT) == ["kestrel", "vixen"]
    # Kestrel's captain is done while it is Kestrel's turn: Kestrel passes, Vixen waits its turn.
    events = on_ready(state, TWO_SHIPS, COMBAT, ScriptedDice([]))
    assert [e.text for e in events] == ["Kestrel has finished its combat actions this round. Next: Vixen."]


def test_TR_04_a_captain_whose_ship_is_not_next_passes_nothing() -> None:
    state = rolled(orders=False)
    state.clock.step = "combat"
    assert on_ready(state, TWO_SHIPS, COMBAT, ScriptedDice([])) == []
    assert turn_order(state, COMBAT) == ["tigress", "kestrel", "vixen"]


def test_TR_04_outside_the_ordered_steps_done_is_the_plain_mark() -> None:
    state = rolled()
    assert turn_order(state, SHIP_ACTION) is None
    assert on_ready(state, KESTREL_ACTOR, SHIP_ACTION, ScriptedDice([])) is None
