"""The table runs itself: who each step waits on (declared by the system's steps and the rulesets),
the readiness handshake, the step ending by itself when nobody is pending, the referee ending it over
someone, and "your move" only for those it waits on — through the service on SQLite and PostgreSQL.
Battles use the default clock option: players may end a step only when nobody else is pending."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from app.models import Battle, Participant
from app.services.errors import Forbidden, Invalid, RollNeeded
from app.services.history import replay as history
from app.services.platform import Platform
from app.services.reading.views import battle_for
from app.services.store.battles import add_participant, create_battle, load_state
from app.services.write import actions
from app.services.write.actions import Command
from tests.helpers import ship_def, simple_ship


class Table:
    def __init__(self, platform: Platform, battle_id: str, ids: dict[str, str]) -> None:
        self.platform, self.id, self.ids = platform, battle_id, ids

    async def act(
        self, who: str, kind: str, payload: dict[str, Any] | None = None, dice: list[int] | None = None
    ) -> list[str]:
        cmd = Command(self.id, self.ids[who], kind, payload or {}, uuid.uuid4().hex, dice=dice)
        return [e["text"] for e in (await actions.submit(self.platform, cmd)).events]

    async def bar(self, who: str) -> dict[str, Any]:
        async with self.platform.db.reader() as session:
            battle = await session.get(Battle, self.id)
            me = await session.get(Participant, self.ids[who])
            data = await battle_for(session, battle, me)
        return data["turn_bar"] | {"may": {o["type"] for o in data["may_submit"]}}

    async def state(self):  # type: ignore[no-untyped-def]
        async with self.platform.db.reader() as session:
            return (await load_state(session, self.id))[0]


async def table(
    platform: Platform,
    system: str,
    ships: dict[str, tuple[dict[str, Any], str]],
    players: tuple[str, ...] = ("ann", "bob"),
    dice_mode: str = "physical",
    **kw: Any,
) -> Table:
    async with platform.db.transaction() as session:
        battle, ref = await create_battle(session, "Readiness", system, dice_mode=dice_mode, **kw)
        seats = {n: await add_participant(session, battle, n.title(), "player") for n in players}
        watcher = await add_participant(session, battle, "Watcher", "spectator")
    ids = {"ref": ref.participant.id, "watcher": watcher.participant.id} | {
        n: s.participant.id for n, s in seats.items()
    }
    t = Table(platform, battle.id, ids)
    for definition, owner in ships.values():
        await t.act("ref", "ship.add", {"definition": definition, "owner": ids[owner]})
    return t


def pending(bar: dict[str, Any]) -> list[str]:
    """Who the step waits on now, by name (not those done, nor those whose turn has not come)."""
    return [row["name"] for row in bar["table"] if not row["done"] and not row["later"]]


async def test_GEN_01_every_commander_marks_done_and_the_step_ends_by_itself(platform: Platform) -> None:
    t = await table(
        platform, "b5wars", {"hawk": (simple_ship("Hawk"), "ann"), "crow": (simple_ship("Crow"), "bob")}
    )
    assert pending(await t.bar("ref")) == ["Ann", "Bob"]
    assert (await t.bar("ann"))["your_move"] and (await t.bar("bob"))["your_move"]
    assert not (await t.bar("ref"))["your_move"] and not (await t.bar("watcher"))["your_move"]
    # A commander may not end the step over another who is still pending.
    assert "clock.advance" not in (await t.bar("ann"))["may"]
    with pytest.raises(Forbidden, match="1 other commander is not done with this step yet"):
        await t.act("ann", "clock.advance")
    assert await t.act("ann", "step.ready") == ["Done with Ship Power."]
    ann, bob = await t.bar("ann"), await t.bar("bob")
    assert pending(ann) == ["Bob"] and not ann["your_move"] and bob["your_move"]
    assert "step.unready" in ann["may"] and "step.ready" not in ann["may"]
    # Taken back, then given again; Bob, the last, ends the step: everyone was done.
    assert await t.act("ann", "step.unready") == ["Not done with this step after all."]
    assert pending(await t.bar("bob")) == ["Ann", "Bob"]
    await t.act("ann", "step.ready")
    texts = await t.act("bob", "step.ready")
    assert texts == [
        "Done with Ship Power.",
        "Everyone is done with Ship Power.",
        "Turn 1 · Ship Power ends; Turn 1 · Movement begins.",
    ]
    state = await t.state()
    assert (state.clock.step, state.ready) == ("movement", [])
    assert pending(await t.bar("ref")) == ["Ann", "Bob"]
    # Once nobody else is pending, a commander may end the step for all (here Bob, after Ann).
    await t.act("ann", "step.ready")
    assert "clock.advance" in (await t.bar("bob"))["may"]
    assert (await t.act("bob", "clock.advance"))[-1] == "Turn 1 · Movement ends; Turn 1 · Combat begins."


async def test_GEN_01_the_referee_ends_a_step_over_pending_commanders_and_the_log_keeps_who(
    platform: Platform,
) -> None:
    t = await table(
        platform,
        "sfb",
        {"hawk": (simple_ship("Hawk", "sfb"), "ann"), "crow": (simple_ship("Crow", "sfb"), "bob")},
    )
    await t.act("ann", "step.ready")
    result = await actions.submit(
        platform,
        Command(t.id, t.ids["ref"], "clock.advance", {"reason": "Bob stepped away"}, uuid.uuid4().hex),
    )
    clock = next(e for e in result.events if e["kind"] == "clock")
    assert clock["data"] == {"pending": [t.ids["bob"]], "reason": "Bob stepped away"}
    assert (await t.state()).clock.step == "impulse"


async def test_GEN_01_players_may_not_move_the_clock_when_the_battle_says_so(platform: Platform) -> None:
    t = await table(
        platform, "b5wars", {"hawk": (simple_ship("Hawk"), "ann")}, options={"players_advance_clock": "never"}
    )
    assert "clock.advance" not in (await t.bar("ann"))["may"]
    with pytest.raises(Forbidden, match="only the referee advances the turn clock"):
        await t.act("ann", "clock.advance")
    # Readiness still ends the step: the referee need not click.
    assert (await t.act("ann", "step.ready"))[-1] == "Turn 1 · Ship Power ends; Turn 1 · Movement begins."


async def test_TR_04_TR_26_orders_and_the_combat_loop_wait_on_the_right_captain(platform: Platform) -> None:
    t = await table(
        platform,
        "traveller",
        {
            "arbellatra": (ship_def("tr-arbellatra-cruiser"), "ann"),
            "dauntless": (ship_def("tr-dauntless-battlecruiser"), "bob"),
        },
    )
    await t.act("ref", "traveller.initiative", {"fleet_tactics": {"Imperial": 1}}, dice=[4, 4, 6, 4])
    # Orders: each captain whose orders are not committed; done = commit the draft exactly as saved.
    assert pending(await t.bar("ref")) == ["Ann", "Bob"]
    draft = {"ship": "arbellatra", "orders": [{"order": "screens_full"}]}
    await t.act("ann", "traveller.orders", draft)
    assert await t.act("ann", "step.ready") == ["Arbellatra commits its orders: Screens to Full! (cost 4)."]
    assert pending(await t.bar("bob")) == ["Bob"] and (await t.bar("bob"))["your_move"]
    texts = await t.act("bob", "step.ready")
    assert texts[0] == "Dauntless commits its orders: no orders (cost 0)."
    assert texts[1].startswith("Every captain has committed; orders revealed")
    assert texts[-1] == "Turn 1 · Orders ends; Turn 1 · Manoeuvre begins."
    # Manoeuvre waits on both; then the combat loop waits on the ship with initiative (TR-04).
    await t.act("ann", "step.ready")
    await t.act("bob", "step.ready")
    bar = await t.bar("watcher")
    assert (await t.state()).clock.step == "combat"
    assert [(o["name"], o["now"]) for o in bar["order"]] == [("Dauntless", True), ("Arbellatra", False)]
    assert pending(bar) == ["Bob"] and not bar["your_move"]
    assert (await t.bar("bob"))["your_move"] and not (await t.bar("ann"))["your_move"]
    assert await t.act("bob", "step.ready") == [
        "Dauntless has finished its combat actions this round. Next: Arbellatra."
    ]
    assert pending(await t.bar("ann")) == ["Ann"]
    texts = await t.act("ann", "step.ready")
    assert texts[0] == "Arbellatra has finished its combat actions this round. Every ship has finished."
    assert texts[-1] == "Turn 1 · Combat ends; Turn 1 · Ship action begins."


async def test_GEN_03_two_independent_entries_made_at_once_both_apply(platform: Platform) -> None:
    """Concurrent entries: both seen at the same seq; the second applies because nothing it names
    changed; one naming a ship another change touched, or made before the step ended, is refused in
    words (two entries on one ship commute: tests/service/test_simultaneous_fire.py)."""
    ships = {
        "hawk": (simple_ship("Hawk"), "ann"),
        "crow": (simple_ship("Crow"), "bob"),
        "kite": (simple_ship("Kite"), "ann"),
        "wren": (simple_ship("Wren"), "bob"),
    }
    t = await table(platform, "b5wars", ships)
    async with platform.db.reader() as session:
        _, seq = await load_state(session, t.id)  # the seq both players looked at

    def hit(who: str, target: str, source: str, seen: int = seq) -> Command:
        payload = {"target": target, "source": source, "amount": 3}
        return Command(t.id, t.ids[who], "damage.apply", payload, uuid.uuid4().hex, seen_seq=seen)

    first, second = (
        await actions.submit(platform, hit("ann", "crow", "hawk")),
        await actions.submit(platform, hit("bob", "kite", "wren")),
    )
    assert (first.seq, second.seq) == (seq + 1, seq + 2)
    from app.services.errors import Stale

    await t.act("ref", "ship.assign", {"ship": "crow", "owner": t.ids["ann"]})
    with pytest.raises(Stale) as err:
        await actions.submit(platform, hit("bob", "hawk", "crow"))  # Crow was handed over meanwhile
    assert err.value.message == f"Crow changed while you acted (action #{seq + 3}); look again"
    await t.act("ref", "ship.assign", {"ship": "crow", "owner": t.ids["bob"]})
    await t.act("ann", "step.ready")
    await t.act("bob", "step.ready")
    with pytest.raises(Stale) as err:  # made before Ship Power ended, on ships nobody touched since
        await actions.submit(platform, hit("ann", "wren", "kite", seen=second.seq))
    assert err.value.message == "the battle moved on: Turn 1 · Ship Power ends; look again"


async def test_GEN_01_SH_03_skips_are_standing_readiness_and_stop_where_a_rule_needs_someone(
    platform: Platform,
) -> None:
    """SFB impulses wait on every commander; a skip says "done until impulse N". Quiet impulses
    pass once everyone is carried; after an impulse with a pain check the skips end."""
    shadow = ship_def("shadow-cruiser")
    t = await table(platform, "sfb", {"ker": (shadow, "bob"), "hawk": (simple_ship("Hawk", "sfb"), "ann")})
    await t.act("ann", "step.ready")
    await t.act("bob", "step.ready")  # Energy Allocation → Impulse 1
    assert await t.act("ann", "clock.skip", {}) == ["Done until the end of impulses."]
    texts = await t.act("bob", "clock.skip", {"to": 5})
    assert texts == [
        "Done until impulse 5.",
        "Everyone is done with Impulse 1/32.",
        "Turn 1 · Impulse 1/32 to Impulse 4/32 pass quietly; Turn 1 · Impulse 5/32 begins.",
    ]
    assert pending(await t.bar("ref")) == ["Bob"]  # Ann's skip carries her on
    # Impulse 5: Ann's ship hits the Shadow; when the impulse ends, the pain check stops the skip.
    hit = {"target": "shadow-cruiser", "source": "hawk", "amount": 20, "section": "Core"}
    await t.act("ann", "damage.apply", hit)
    texts = await t.act("bob", "step.ready")
    assert "Everyone is done with Impulse 5/32." in texts
    assert any("no pain check" in x for x in texts)
    state = await t.state()
    assert (state.clock.impulse, state.ready_until) == (6, {})
    assert pending(await t.bar("ref")) == ["Ann", "Bob"]


async def test_TR_03_before_initiative_the_orders_step_waits_on_the_referee_who_rolls_it(
    platform: Platform,
) -> None:
    """TR-03: initiative is rolled once per engagement, by the referee, before any orders. Until
    then the orders step waits on the referee alone (named, with what for, and "your move"); the
    captains have nothing to do yet: not waited on, not done, and their Done is refused."""
    t = await table(
        platform,
        "traveller",
        {
            "arbellatra": (ship_def("tr-arbellatra-cruiser"), "ann"),
            "dauntless": (ship_def("tr-dauntless-battlecruiser"), "bob"),
        },
    )
    ref, ann = await t.bar("ref"), await t.bar("ann")
    assert ref["waiting_on"] == ["Referee"] and ref["your_move"]
    assert ref["waiting_for"] == "roll initiative for the engagement (TR-03)"
    assert [(r["name"], r["done"], r["later"]) for r in ref["table"]] == [
        ("Referee", False, False),
        ("Ann", False, True),
        ("Bob", False, True),
    ]
    assert not ann["your_move"] and "step.ready" not in ann["may"]
    with pytest.raises(Forbidden, match="the step waits on the referee: roll initiative for the engagement"):
        await t.act("ann", "step.ready")
    assert "traveller.initiative" in ref["may"]
    # Rolled: the orders are the captains' now, and the referee is no longer waited on.
    await t.act("ref", "traveller.initiative", {"fleet_tactics": {"Imperial": 1}}, dice=[4, 4, 6, 4])
    ref, ann = await t.bar("ref"), await t.bar("ann")
    assert ref["waiting_on"] == ["Ann", "Bob"] and not ref["your_move"] and ann["your_move"]
    assert ref["waiting_for"] is None
    assert [r["name"] for r in ref["table"]] == ["Ann", "Bob"]


async def test_TR_04_a_captain_whose_turn_in_the_loop_has_not_come_is_not_done(platform: Platform) -> None:
    """TR-04: in the combat loop only the ship whose turn it is is waited on; a captain whose turn
    comes later is not done (no ✓) until their ship has passed."""
    t = await table(
        platform,
        "traveller",
        {
            "arbellatra": (ship_def("tr-arbellatra-cruiser"), "ann"),
            "dauntless": (ship_def("tr-dauntless-battlecruiser"), "bob"),
        },
    )
    await t.act("ref", "traveller.initiative", {"fleet_tactics": {"Imperial": 1}}, dice=[4, 4, 6, 4])
    await t.act("ann", "traveller.orders", {"ship": "arbellatra", "orders": [{"order": "screens_full"}]})
    for _ in range(2):  # orders (committed as drafted: Screens to Full! costs Arbellatra 4), manoeuvre
        await t.act("ann", "step.ready")
        await t.act("bob", "step.ready")
    assert (await t.state()).clock.step == "combat"
    rows = lambda bar: [(r["name"], r["done"], r["later"]) for r in bar["table"]]  # noqa: E731
    bar = await t.bar("watcher")
    assert bar["waiting_on"] == ["Bob"]
    assert rows(bar) == [("Ann", False, True), ("Bob", False, False)]
    await t.act("bob", "step.ready")  # Dauntless passes: Arbellatra's turn
    bar = await t.bar("watcher")
    assert bar["waiting_on"] == ["Ann"]
    assert rows(bar) == [("Ann", False, False), ("Bob", True, False)]


SHADOW = "shadow-cruiser"


async def shadow_hit(platform: Platform, before: dict[str, Any] | None = None) -> Table:
    """Kirk's Hawk and Kosh's Shadow Cruiser, physical dice (`before`: an action the referee takes
    first): both done with Energy Allocation, Kirk hits the Shadow for 60 to armour and internals
    (band 50–99) in Impulse 1 and Kosh is done; Kirk's Done would end the impulse on Kosh's die."""
    t = await table(
        platform,
        "sfb",
        {"ker": (ship_def(SHADOW), "kosh"), "hawk": (simple_ship("Hawk", "sfb"), "kirk")},
        players=("kirk", "kosh"),
    )
    if before is not None:
        await t.act("ref", before["type"], before["payload"])
    await t.act("kirk", "step.ready")
    await t.act("kosh", "step.ready")  # Energy Allocation → Impulse 1
    for direction in ("port", "fore"):
        hit = {"target": SHADOW, "source": "hawk", "amount": 30, "direction": direction}
        await t.act("kirk", "damage.apply", hit)
    await t.act("kosh", "step.ready")
    return t


async def test_GEN_02_SH_03_the_pain_check_dice_are_asked_of_the_shadows_commander(
    platform: Platform,
) -> None:
    """GEN-02 physical dice: the dice a rule rolls for a ship are its commander's (or the referee's)
    to enter. Kirk hits Kosh's Shadow; when both are done, the impulse's end waits for Kosh's pain
    check dice (SH-03, SH-04): the bar names Kosh and what for, only Kosh and the referee may enter
    them, Kirk's Done is kept and Kirk may not enter them; Kosh's dice end the impulse with the check."""
    shadow = SHADOW
    t = await shadow_hit(platform)
    with pytest.raises(Invalid, match="rolled for Shadow Cruiser by its commander or the referee"):
        await t.act("kirk", "step.ready", dice=[2, 6, 1])
    texts = await t.act("kirk", "step.ready")  # no dice asked of Kirk: the end waits for Kosh
    assert texts == [
        "Done with Impulse 1/32.",
        "Everyone is done with Impulse 1/32.",
        "Turn 1 · Impulse 1/32 ends once Shadow Cruiser's commander (or the referee) enters 1d6 for"
        " pain rise chance, band 50–99.",
    ]
    state = await t.state()
    assert (state.clock.impulse, sorted(state.ready)) == (1, sorted([t.ids["kirk"], t.ids["kosh"]]))
    kirk, kosh, ref = await t.bar("kirk"), await t.bar("kosh"), await t.bar("ref")
    assert kosh["waiting_on"] == ["Kosh"] and kosh["your_move"] and not kirk["your_move"]
    assert kosh["waiting_for"] == "dice for Shadow Cruiser: 1d6 for pain rise chance, band 50–99"
    assert "step.roll" in kosh["may"] and "step.roll" in ref["may"] and "step.roll" not in kirk["may"]
    assert not {"step.ready", "step.unready", "clock.advance"} & kirk["may"]
    with pytest.raises(Forbidden, match="the dice for Shadow Cruiser are its commander's to enter"):
        await t.act("kirk", "step.roll", dice=[2, 6, 1])
    with pytest.raises(RollNeeded) as need:  # asked of Kosh by purpose, as any physical die
        await t.act("kosh", "step.roll")
    assert need.value.extra["needed"] == {
        "sides": 6,
        "purpose": "pain rise chance, band 50–99",
        "ship": shadow,
        "index": 0,
    }
    # SH-04/SH-05: rise 2 (≤ 2) → amount 6 − 3 = 3 → pain 3; SH-06: reaction 1 (≤ 2) at pain 3 is ZERO.
    assert await t.act("kosh", "step.roll", dice=[2, 6, 1]) == [
        "Shadow Cruiser took 60 damage to armour and internals in turn 1 impulse 1 (most from Hawk, 60):"
        " pain rises 0 → 3.",
        "Shadow Cruiser grins and bears it: pain 3 reads ZERO, which is no reaction (nothing changes, SH-06).",
        "Turn 1 · Impulse 1/32 ends; Turn 1 · Impulse 2/32 begins.",
    ]
    state = await t.state()
    pain = state.ships[shadow].parts["pain"]
    assert (state.clock.impulse, state.rolling, state.ready) == (2, None, [])
    assert (pain["level"], pain["damage_total"]) == (3, 0)
    assert pending(await t.bar("ref")) == ["Kirk", "Kosh"]
    # The log replays to the same state: Kirk's Done waits again where it waited, Kosh's dice end it.
    rebuilt = await history.rebuild(platform, t.id)
    assert rebuilt.model_dump(mode="json") == state.model_dump(mode="json")
