"""A whole Traveller round on the range board through the service door (`actions.submit`), with
entered dice, on SQLite and PostgreSQL: the referee places the pair, the manoeuvre step's Thrust
moves it, and the barrage fires at the board's band with that band's DM (TR-02, TR-06)."""

from __future__ import annotations

import json

import pytest

from app.services.errors import Forbidden, Invalid
from app.services.history import replay as history
from app.services.platform import Platform
from tests.service.test_traveller_service import fleet

SHOT = {
    "ship": "dauntless",
    "battery": "pulse-lasers",
    "target": "arbellatra",
    "mounts": 70,
    "adjacent": "fore",
}


async def test_TR_02_TR_06_a_round_moves_the_pair_and_the_barrage_fires_at_the_boards_band(
    platform: Platform,
) -> None:
    f = await fleet(
        platform, {"tr-arbellatra-cruiser": "ann", "tr-dauntless-battlecruiser": "bob"}, orders=False
    )
    placed = {
        "ship": "dauntless",
        "other": "arbellatra",
        "band": "close",
        "reason": "the scenario opens at Close",
    }
    assert await f.act("ref", "traveller.set_range", placed) == [
        "⚠ OVERRIDE (Referee): range board Arbellatra–Dauntless off the board→Close — “the scenario opens at Close”"
    ]
    with pytest.raises(Forbidden, match="only the referee may set a pair's range band"):
        await f.act("ann", "traveller.set_range", placed)
    await f.advance()  # orders → manoeuvre

    close = {"ship": "arbellatra", "thrust": 2, "target": "dauntless", "direction": "close"}
    assert await f.act("ann", "traveller.manoeuvre", close) == [
        "Arbellatra spends 2 Thrust: closes on Dauntless (now Close, 1 to change band; settled when the"
        " manoeuvre step ends) (2 left this round)."
    ]
    escape = {"ship": "dauntless", "thrust": 1, "target": "arbellatra", "direction": "open"}
    await f.act("bob", "traveller.manoeuvre", escape)
    # Everyone may read the allocations and the board before the step ends (nothing there is secret).
    seen = json.loads(await f.seen_by("watcher"))["state"]["ships"]
    assert seen["arbellatra"]["parts"]["hg_ship"]["ranges"] == {"dauntless": {"band": "close", "progress": 0}}
    assert seen["arbellatra"]["parts"]["hg_ship"]["round"]["moves"] == {"dauntless": -2}
    assert seen["dauntless"]["parts"]["hg_ship"]["round"]["moves"] == {"arbellatra": 1}

    texts = await f.act("ref", "clock.advance", {})  # manoeuvre → combat: the board settles
    assert (
        "Range board: Arbellatra–Dauntless Close → Adjacent (Arbellatra closes 2, Dauntless opens 1: net closing 1)."
        in texts
    )
    assert (await f.hg("arbellatra"))["ranges"] == {"dauntless": {"band": "adjacent", "progress": 0}}

    # A typed band that disagrees with the board is refused before any die, naming the field.
    with pytest.raises(Invalid) as refused:
        await f.act("bob", "traveller.barrage", {**SHOT, "range": "short"})
    assert refused.value.field == "range"
    assert refused.value.message == (
        "the range board has Arbellatra–Dauntless at Adjacent, not Short: fire at the board's band (or leave"
        " the range out)"
    )
    # Sand 1d6 4; attack 2D 3+3; location 1d6 3 (Main).
    texts = await f.act("bob", "traveller.barrage", SHOT, dice=[4, 3, 3, 3])
    # TR-02: pulse lasers (Short row) at Adjacent −1 (a capital ship shooting). TR-07: sand 4 − 2 (40 sandcasters ≤ 90% of 70) = 2.
    # 6 − 1 + FC 4 + Gunner 3 − 2 + (2 − 6 − 2) = 4 → 25% → ⌊70 × 25%⌋ = 17, split 9 / 8 toward fore.
    assert texts == [
        "barrage 70–Pulse Laser–Adjacent–2 at Arbellatra: 2D 6 + range −1 + FC +4 + Gunner +3 + weapon −2"
        " + (2 − armour 6 − sand 2) = 4 → 25% → 17 damage → location 1d6 3: Main; 9 to Main Hull 66→57;"
        " 8 to Forward Hull 66→58"
    ]
    rebuilt = await history.rebuild(platform, f.battle_id)
    assert rebuilt.model_dump(mode="json") == (await f.state()).model_dump(mode="json")


async def test_TR_02_pairs_off_the_board_keep_the_typed_range(platform: Platform) -> None:
    """The old payload (a typed range) still fires where the board has no band for the pair."""
    f = await fleet(
        platform, {"tr-arbellatra-cruiser": "ann", "tr-dauntless-battlecruiser": "bob"}, orders=False
    )
    await f.advance(2)
    with pytest.raises(Invalid) as refused:
        await f.act("bob", "traveller.barrage", SHOT)
    assert refused.value.field == "range"
    texts = await f.act("bob", "traveller.barrage", {**SHOT, "range": "short"}, dice=[4, 3, 3, 3])
    assert texts[0].startswith("barrage 70–Pulse Laser–Short–2 at Arbellatra: 2D 6 + range 0 + FC +4")
