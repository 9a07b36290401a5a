"""What "done" means for the battle file: each demo battle, played a while, is exported,
imported on a fresh database of the other kind, passes the audit there, and gives the identical
state at every seq (seat ids renamed) — the import's own replay is checked against the original's."""

from __future__ import annotations

import httpx

from app.services.history.replay import state_at
from app.services.platform import Platform
from app.services.store.battles import get_battle
from tests.web.test_battle_file import ok, pair, renamed  # noqa: F401  (pair: a fixture)
from tests.web.test_report import played


async def states(platform: Platform, battle_id: str, seq: int) -> list[dict]:  # type: ignore[type-arg]
    async with platform.db.reader() as session:
        battle = await get_battle(session, battle_id)
        return [
            (await state_at(session, battle, n, platform.rules)).model_dump(mode="json")
            for n in range(seq + 1)
        ]


async def test_each_demo_battle_exports_imports_and_replays_the_same_at_every_seq(
    pair: tuple[httpx.AsyncClient, httpx.AsyncClient],  # noqa: F811
) -> None:
    source, target = pair
    here: Platform = source.app.state.platform  # type: ignore[attr-defined]
    there: Platform = target.app.state.platform  # type: ignore[attr-defined]
    for demo in await played(here):
        ref = {"Authorization": f"Bearer {demo.tokens['Referee']}"}
        file = await ok(await source.get(f"/api/v1/battles/{demo.battle_id}/export", headers=ref))
        made = await target.post("/api/v1/battles/import", json=file)
        assert made.status_code == 201, made.text
        copy = made.json()
        assert copy["seq"] == file["battle"]["seq"] > 5
        mine = {
            "Authorization": f"Bearer {next(s['token'] for s in copy['seats'] if s['role'] == 'referee')}"
        }
        audit = await ok(await target.get(f"/api/v1/battles/{copy['battle_id']}/audit", headers=mine))
        assert audit == {"seq": copy["seq"], "snapshot_matches_log": True}
        ids = {s["file_id"]: s["participant_id"] for s in copy["seats"]} | {demo.battle_id: copy["battle_id"]}
        original = await states(here, demo.battle_id, copy["seq"])
        imported = await states(there, copy["battle_id"], copy["seq"])
        for seq, (a, b) in enumerate(zip(original, imported, strict=True)):
            assert b == renamed(a, ids), f"{file['battle']['name']}: the states differ at seq {seq}"
