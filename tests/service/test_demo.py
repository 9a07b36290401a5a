"""The demo battles a newcomer plays first: made from data (app/shipdata/demos.json), every seat
linked, the Traveller fleets on opposing sides, and the clock run by readiness (the default)."""

from __future__ import annotations

from app.demo import create_demos
from app.services.platform import Platform
from app.services.store.battles import load_state


async def test_demos_seat_everyone_and_put_the_traveller_fleets_on_opposing_sides(platform: Platform) -> None:
    made = await create_demos(platform, "http://demo.test")
    assert [m["battle"] for m in made] == [
        "Demo: Shadow cruiser vs Federation (SFB impulses)",
        "Demo: Star Trek vs Shadows (B5 Wars)",
        "Demo: Traveller fleet action (High Guard)",
    ]
    for m in made:
        assert m["links"]["Referee"].startswith("http://demo.test/join#") and "Spectator" in m["links"]
    async with platform.db.reader() as session:
        traveller, _ = await load_state(session, made[2]["id"])
        shadow, _ = await load_state(session, made[0]["id"])
    assert {s.name: s.side for s in traveller.ships.values()} == {
        "Arbellatra": "Imperial Navy",
        "Dauntless": "Rebel squadron",
    }
    assert "players_advance_clock" not in shadow.options  # readiness: a step ends when all are done
    assert sorted(s.name for s in shadow.ships.values()) == ["Federation Heavy Cruiser", "Shadow Cruiser"]
