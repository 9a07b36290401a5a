"""Orders clauses (TR-26, TR-26a, TR-26b, TR-27) not met elsewhere: targets, I Only Need One More
Shot on a spinal mount, giving orders twice or before initiative, the referee's reveal, and the
limits on emergency orders."""

from __future__ import annotations

from typing import Any

import pytest

from app.rules.core import Actor, RuleError
from app.rules.state import BattleState
from tests.rules.traveller.helpers import KESTREL_ACTOR, TIGRESS_ACTOR, act, advance_to, battle, capital, hg


def fleet(**kestrel: Any) -> BattleState:
    """Kestrel (Crew Skill 3) initiative 1d6 5 + 3 = 8; Tigress 1d6 2 + 2 = 4 (TR-03)."""
    state = battle(
        capital("Kestrel", crew_skill=3, **kestrel), capital("Tigress"), owners=("p-kestrel", "p-tigress")
    )
    return act(state, "traveller.initiative", {}, dice=[5, 2]).state


def orders(state: BattleState, ship: str, *choices: dict[str, Any], commit: bool = True) -> BattleState:
    actor = KESTREL_ACTOR if ship == "kestrel" else TIGRESS_ACTOR
    return act(
        state, "traveller.orders", {"ship": ship, "orders": list(choices), "commit": commit}, actor
    ).state


def refused(state: BattleState, kind: str, payload: dict[str, Any], actor: Actor = KESTREL_ACTOR) -> str:
    with pytest.raises(RuleError) as err:
        act(state, kind, payload, actor)
    return err.value.message


def test_TR_26b_blast_them_names_another_ship() -> None:
    """Blast Them As They Launch!: "Select an enemy vessel"."""
    state = fleet()
    for target in (None, "kestrel", "nobody"):
        choice = {"order": "blast_them", **({"target": target} if target else {})}
        payload = {"ship": "kestrel", "orders": [choice], "commit": True}
        assert refused(state, "traveller.orders", payload) == (
            "Blast Them As They Launch! needs another ship as its target"
        )


def test_TR_27_one_more_shot_names_a_damaged_system() -> None:
    state = fleet()
    payload = {"ship": "kestrel", "orders": [{"order": "one_more_shot", "target": "beam"}], "commit": True}
    assert refused(state, "traveller.orders", payload) == (
        "I Only Need One More Shot names a damaged battery id, or 'spinal'"
    )


def test_TR_27_one_more_shot_on_a_damaged_spinal_mount_then_it_gives_out() -> None:
    """The damaged spinal mount works fully this round and is disabled (second hit) at its end."""
    state = fleet(spinal={"type": "particle", "damage": 100})
    hg(state, "kestrel")["spinal"]["hits"] = 1
    state = orders(state, "kestrel", {"order": "one_more_shot", "target": "spinal"})
    state = orders(state, "tigress")
    assert hg(state, "kestrel")["spinal"]["one_more_shot"] == 1
    later = advance_to(state, "orders", turn=2)
    assert "Kestrel's spinal mount gives out." in later.texts
    assert hg(later.state, "kestrel")["spinal"]["hits"] == 2
    assert hg(later.state, "kestrel")["spinal"]["one_more_shot"] is None


def test_TR_26_orders_are_committed_once_a_round() -> None:
    state = orders(fleet(), "kestrel", {"order": "focused_fire", "target": "tigress"})
    payload = {"ship": "kestrel", "orders": [], "commit": True}
    assert refused(state, "traveller.orders", payload) == "Kestrel's orders are already committed this round"


def test_TR_03_a_ship_joining_after_the_initiative_roll_gives_no_orders_until_it_has_one() -> None:
    state = act(fleet(), "ship.add", {"definition": capital("Osprey"), "owner": "p-osprey"}).state
    osprey = Actor("p-osprey", "player", frozenset({"osprey"}))
    payload = {"ship": "osprey", "orders": [], "commit": True}
    assert (
        refused(state, "traveller.orders", payload, osprey)
        == "roll initiative for the engagement first (TR-03)"
    )


def test_TR_26a_the_referee_reveals_no_orders_in_a_battle_without_them() -> None:
    state = battle(capital("Kestrel"), capital("Tigress"), orders=False)
    state = act(state, "traveller.initiative", {}, dice=[5, 2]).state
    assert state.clock.step == "orders"
    with pytest.raises(RuleError) as err:
        act(state, "traveller.reveal_orders", {})
    assert err.value.message == "orders are not used in this battle (TR-26a)"


def test_TR_26_with_no_ship_left_in_the_fight_there_is_nothing_to_reveal() -> None:
    """Revealing the orders again is refused: once every captain's orders are out the step ends by
    itself, so the referee meets this only when no ship is left in the fight to give any."""
    state = battle()
    assert state.clock.step == "orders"
    with pytest.raises(RuleError) as err:
        act(state, "traveller.reveal_orders", {})
    assert err.value.message == "the orders are already revealed"


def test_TR_26_an_emergency_order_already_written_is_not_given_again() -> None:
    """Prepare for Impact! is not repeatable (no *): written this round, it cannot come again as a reaction."""
    state = orders(orders(fleet(), "kestrel", {"order": "prepare_impact"}), "tigress")
    state = advance_to(state, "combat").state
    payload = {"ship": "kestrel", "order": {"order": "prepare_impact"}}
    assert (
        refused(state, "traveller.emergency_order", payload)
        == "Prepare for Impact! was already given this round"
    )


def test_TR_26_an_emergency_order_needs_a_reaction_left() -> None:
    """Tigress at initiative 4 has one reaction (0–4 → 1); a dodge used it."""
    state = orders(orders(fleet(), "kestrel"), "tigress")
    state = advance_to(state, "combat").state
    state = act(state, "traveller.dodge", {"ship": "tigress"}, TIGRESS_ACTOR, [1, 1]).state
    payload = {"ship": "tigress", "order": {"order": "prepare_impact"}}
    assert refused(state, "traveller.emergency_order", payload, TIGRESS_ACTOR) == (
        "Tigress has no reaction left (1 this round)"
    )
