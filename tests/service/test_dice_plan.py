"""Physical dice that flow (GEN-02): a missing die is answered with every die the action may still
need, in order, by purpose, marking those only some faces call for — so a pain check asks once."""

from __future__ import annotations

import uuid

import pytest

from app.services.errors import RollNeeded
from app.services.platform import Platform
from app.services.write import actions
from app.services.write.actions import Command
from tests.service.test_shadow_service import SEED_HITS, shadow_battle


async def test_GEN_02_SH_04_SH_05_SH_06_a_pain_check_asks_for_all_its_dice_at_once(
    platform: Platform,
) -> None:
    b = await shadow_battle(platform)
    await b.act("kirk", "clock.advance", {})
    for hit in SEED_HITS:
        await b.act(
            "kirk", "damage.apply", {"target": "shadow-cruiser", "source": "federation-heavy-cruiser", **hit}
        )
    with pytest.raises(RollNeeded) as need:
        await actions.submit(platform, Command(b.id, b.ids["kosh"], "clock.advance", {}, uuid.uuid4().hex))
    plan = [(d["index"], d["sides"], d["purpose"], d["always"]) for d in need.value.extra["plan"]]
    assert plan == [
        (0, 6, "pain rise chance, band 200–249", True),
        (1, 6, "rise amount", False),
        (2, 6, "reaction chance, band 200–249", False),
    ]
    # With the first die given, the plan starts where the player is.
    with pytest.raises(RollNeeded) as need:
        await actions.submit(
            platform, Command(b.id, b.ids["kosh"], "clock.advance", {}, uuid.uuid4().hex, dice=[3])
        )
    assert [d["purpose"] for d in need.value.extra["plan"]] == [
        "rise amount",
        "reaction chance, band 200–249",
    ]
    assert need.value.extra["plan"][0]["always"] is True  # 3 ≤ 5: pain rises, so its amount is rolled
