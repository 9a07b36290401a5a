"""Simultaneous fire on one target (GEN-03): two damage entries made at the same seq both apply,
because two entries on one ship commute, except where a part of the ship reads their order (the
Shadow's pain check, SH-03/SH-09; High Guard's hits in sequence, TR-14/TR-17). Anything else that
touched a named ship meanwhile still refuses the late entry in words. Through the service on SQLite
and PostgreSQL."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from app.services.errors import Stale
from app.services.platform import Platform
from app.services.store.battles import load_state
from app.services.write import actions
from app.services.write.actions import Command
from tests.helpers import ship_def, simple_ship
from tests.service.test_readiness import Table, table


async def _seq(t: Table) -> int:
    async with t.platform.db.reader() as session:
        return (await load_state(session, t.id))[1]


def _entry(t: Table, who: str, kind: str, payload: dict[str, Any], seen: int) -> Command:
    return Command(t.id, t.ids[who], kind, payload, uuid.uuid4().hex, seen_seq=seen)


async def test_GEN_03_two_hits_on_one_target_made_at_once_both_land(platform: Platform) -> None:
    ships = {
        "hawk": (simple_ship("Hawk", "sfb"), "ann"),
        "kite": (simple_ship("Kite", "sfb"), "bob"),
        "crow": (simple_ship("Crow", "sfb", armour=4), "cid"),
    }
    t = await table(platform, "sfb", ships, players=("ann", "bob", "cid"))
    seen = await _seq(t)  # the seq Ann and Bob both looked at
    first = await actions.submit(
        platform, _entry(t, "ann", "damage.apply", {"target": "crow", "source": "hawk", "amount": 6}, seen)
    )
    second = await actions.submit(
        platform, _entry(t, "bob", "damage.apply", {"target": "crow", "source": "kite", "amount": 5}, seen)
    )
    assert (first.seq, second.seq) == (seen + 1, seen + 2)
    assert first.events[0]["text"] == "Hawk hits Crow for 6: 6 to Primary."
    assert second.events[0]["text"] == "Kite hits Crow for 5: 5 to Primary."
    sheet = (await t.state()).ships["crow"].parts["sheet"]
    primary = next(s for s in sheet["sections"] if s["name"] == "Primary")
    assert primary["structure"] == 40 - 6 - 5  # both on the sheet


async def test_GEN_03_crossfire_made_at_once_both_land(platform: Platform) -> None:
    """Hawk fires at Crow while Crow fires at Hawk: each entry names both ships, and both land."""
    ships = {"hawk": (simple_ship("Hawk", "sfb"), "ann"), "crow": (simple_ship("Crow", "sfb"), "bob")}
    t = await table(platform, "sfb", ships)
    seen = await _seq(t)
    await actions.submit(
        platform, _entry(t, "ann", "damage.apply", {"target": "crow", "source": "hawk", "amount": 3}, seen)
    )
    back = await actions.submit(
        platform, _entry(t, "bob", "damage.apply", {"target": "hawk", "source": "crow", "amount": 3}, seen)
    )
    assert back.seq == seen + 2


async def test_GEN_03_another_change_to_the_target_still_refuses_the_late_entry(platform: Platform) -> None:
    """Only entries commute: the referee handing Crow to another seat meanwhile is a change the
    entry made before it did not see."""
    ships = {"hawk": (simple_ship("Hawk", "sfb"), "ann"), "crow": (simple_ship("Crow", "sfb"), "bob")}
    t = await table(platform, "sfb", ships)
    seen = await _seq(t)
    await t.act("ref", "ship.assign", {"ship": "crow", "owner": t.ids["ann"]})
    with pytest.raises(Stale) as err:
        await actions.submit(
            platform,
            _entry(t, "ann", "damage.apply", {"target": "crow", "source": "hawk", "amount": 3}, seen),
        )
    assert err.value.message == f"Crow changed while you acted (action #{seen + 1}); look again"


async def test_SH_03_SH_09_two_hits_on_a_shadow_at_once_the_second_is_refused(platform: Platform) -> None:
    """The pain check reads the impulse's hits in order (a tie for the largest source goes to the
    first to hit), so the second entry made without seeing the first is refused."""
    ships = {
        "hawk": (simple_ship("Hawk", "sfb"), "ann"),
        "kite": (simple_ship("Kite", "sfb"), "bob"),
        "kosh": (ship_def("shadow-cruiser"), "cid"),
    }
    t = await table(platform, "sfb", ships, players=("ann", "bob", "cid"))
    seen = await _seq(t)
    hit = {"target": "shadow-cruiser", "amount": 10, "section": "Core"}
    await actions.submit(platform, _entry(t, "ann", "damage.apply", hit | {"source": "hawk"}, seen))
    with pytest.raises(Stale) as err:
        await actions.submit(platform, _entry(t, "bob", "damage.apply", hit | {"source": "kite"}, seen))
    assert err.value.message == f"Shadow Cruiser changed while you acted (action #{seen + 1}); look again"


async def test_TR_14_two_hits_on_a_high_guard_ship_at_once_the_second_is_refused(platform: Platform) -> None:
    """High Guard hits land in sequence (TR-14's third drive hit reads the hits before)."""
    ships = {
        "arbellatra": (ship_def("tr-arbellatra-cruiser"), "ann"),
        "dauntless": (ship_def("tr-dauntless-battlecruiser"), "bob"),
    }
    t = await table(platform, "traveller", ships)
    seen = await _seq(t)
    hit = {"target": "dauntless", "section": "Main", "system": "m_drive"}
    await actions.submit(platform, _entry(t, "ref", "traveller.entered_hit", hit, seen))
    with pytest.raises(Stale) as err:
        await actions.submit(platform, _entry(t, "ref", "traveller.entered_hit", hit, seen))
    assert err.value.message.endswith(f"changed while you acted (action #{seen + 1}); look again")
