"""The table runs itself: who each step waits on (declared by the system's steps and the rulesets),
the readiness handshake, the step ending by itself when nobody is pending, the referee ending it over
someone, and "your move" only for those it waits on — through the service on SQLite and PostgreSQL.
Battles use the default clock option: players may end a step only when nobody else is pending."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from app.models import Battle, Participant
from app.services.errors import Forbidden
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
    platform: Platform, system: str, ships: dict[str, tuple[dict[str, Any], str]], **kw: Any
) -> Table:
    async with platform.db.transaction() as session:
        battle, ref = await create_battle(session, "Readiness", system, dice_mode="physical", **kw)
        seats = {n: await add_participant(session, battle, n.title(), "player") for n in ("ann", "bob")}
        watcher = await add_participant(session, battle, "Watcher", "spectator")
    ids = {"ref": ref.participant.id, "watcher": watcher.participant.id} | {
        n: s.participant.id for n, s in seats.items()
    }
    t = Table(platform, battle.id, ids)
    for definition, owner in ships.values():
        await t.act("ref", "ship.add", {"definition": definition, "owner": ids[owner]})
    return t


def pending(bar: dict[str, Any]) -> list[str]:
    return [row["name"] for row in bar["table"] if not row["done"]]


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
        platform,
        "b5wars",
        {"hawk": (simple_ship("Hawk"), "ann")},
        options={"players_advance_clock": "never"},
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
    changed; one naming a ship the other touched, or made before the step ended, is refused in words."""
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

    with pytest.raises(Stale) as err:
        await actions.submit(platform, hit("bob", "hawk", "crow"))  # Crow was hit meanwhile
    assert err.value.message == f"Crow, Hawk changed while you acted (action #{seq + 1}); look again"
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
