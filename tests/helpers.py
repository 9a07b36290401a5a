"""Test helpers that drive the real doors: REST set-up, session cookies from join links."""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

LIBRARY = Path(__file__).resolve().parent.parent / "app" / "shipdata" / "library"


def ship_def(slug: str) -> dict[str, Any]:
    return json.loads((LIBRARY / f"{slug}.json").read_text())


def simple_ship(name: str, system: str = "b5wars", structure: int = 40, armour: int = 4) -> dict[str, Any]:
    """A small generic ship: a primary and a fore section."""
    return {
        "name": name,
        "klass": "Test frigate",
        "system": system,
        "parts": {
            "sheet": {
                "sections": [
                    {
                        "name": "Primary",
                        "structure_max": structure,
                        "systems": [{"name": "Reactor", "boxes": 6}, {"name": "Bridge", "boxes": 4}],
                    },
                    {
                        "name": "Fore",
                        "arc": "fore",
                        "armour_max": armour,
                        "structure_max": 20,
                        "systems": [{"name": "Laser", "kind": "weapon", "boxes": 5}],
                    },
                ]
            }
        },
    }


@dataclass
class Table:
    """A battle set up over REST: the referee and players' tokens and the ship ids."""

    base: str
    battle_id: str
    tokens: dict[str, str]
    ids: dict[str, str]
    ships: dict[str, str] = field(default_factory=dict)

    def auth(self, who: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[who]}"}


async def act(
    c: httpx.AsyncClient, table: Table, who: str, type_: str, payload: dict[str, Any], **extra: Any
) -> httpx.Response:
    body = {"type": type_, "payload": payload, "action_id": extra.pop("action_id", uuid.uuid4().hex), **extra}
    return await c.post(f"/api/v1/battles/{table.battle_id}/actions", json=body, headers=table.auth(who))


async def set_table(
    c: httpx.AsyncClient,
    system: str = "b5wars",
    players: tuple[str, ...] = ("ann", "bob"),
    ships: dict[str, tuple[dict[str, Any], str | None]] | None = None,
    dice_mode: str = "seeded",
    spectator: bool = True,
) -> Table:
    """Create a battle, seats and ships through the REST API, as a bot referee would."""
    r = await c.post(
        "/api/v1/battles", json={"name": "Test battle", "system": system, "dice_mode": dice_mode}
    )
    assert r.status_code == 201, r.text
    created = r.json()
    table = Table(
        str(c.base_url),
        created["battle_id"],
        {"ref": created["referee"]["token"]},
        {"ref": created["referee"]["participant_id"]},
    )
    seats = list(players) + (["watcher"] if spectator else [])
    for name in seats:
        role = "spectator" if name == "watcher" else "player"
        r = await c.post(
            f"/api/v1/battles/{table.battle_id}/participants",
            json={"name": name, "role": role},
            headers=table.auth("ref"),
        )
        assert r.status_code == 201, r.text
        table.tokens[name] = r.json()["token"]
        table.ids[name] = r.json()["participant_id"]
    for label, (definition, owner) in (ships or {}).items():
        r = await act(
            c,
            table,
            "ref",
            "ship.add",
            {"definition": definition, "owner": table.ids.get(owner) if owner else None},
        )
        assert r.status_code == 200, r.text
        table.ships[label] = r.json()["events"][0]["ship"]
    return table


async def session_cookie(c: httpx.AsyncClient, token: str) -> str:
    r = await c.get(f"/join/{token}", follow_redirects=False)
    assert r.status_code == 303, r.text
    return r.cookies["starboard_session"]
