"""Demo battles from the sample library, so a newcomer can play at once. Their join links are
kept in var/demo_links.json (tokens are stored hashed in the database, so this file is the only copy)."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

from app.config import ROOT
from app.services import actions as action_service
from app.services.battles import add_participant, create_battle
from app.services.library import library
from app.services.platform import Platform

LINKS_FILE = ROOT / "var" / "demo_links.json"

# name, system, [(library slug, seat name or None)]
DEMOS: list[tuple[str, str, list[tuple[str, str | None]]]] = [
    (
        "Demo: Shadow cruiser vs Federation (SFB impulses)",
        "sfb",
        [("shadow-cruiser", "Kosh"), ("federation-heavy-cruiser", "Kirk")],
    ),
    (
        "Demo: Star Trek vs Shadows (B5 Wars)",
        "b5wars",
        [
            ("excelsior", "Kirk"),
            ("shadow-cruiser", "Kosh"),
            ("romulan-warbird", "Tomalak"),
            ("new-orleans", "Kirk"),
        ],
    ),
    (
        "Demo: Traveller fleet action (High Guard)",
        "traveller",
        [("tr-", "Ann"), ("tr-", "Bob")],
    ),
]


def _resolve(slug: str, taken: set[str]) -> str | None:
    """A slug ending in '-' picks the next unused library ship with that prefix."""
    ships = library()
    if not slug.endswith("-"):
        return slug if slug in ships else None
    for candidate in sorted(ships):
        if candidate.startswith(slug) and candidate not in taken and not candidate.endswith("flight"):
            return candidate
    return None


async def create_demos(platform: Platform, base_url: str) -> list[dict[str, Any]]:
    made = []
    for name, system, fleet in DEMOS:
        async with platform.db.transaction() as session:
            battle, referee = await create_battle(
                session, name, system, options={"players_advance_clock": True}
            )
            seat_names = sorted({seat for _, seat in fleet if seat})
            seats = {n: await add_participant(session, battle, n, "player") for n in seat_names}
            watcher = await add_participant(session, battle, "Spectator", "spectator")
        taken: set[str] = set()
        for slug, seat in fleet:
            resolved = _resolve(slug, taken)
            if resolved is None:
                continue
            taken.add(resolved)
            owner = seats[seat].participant.id if seat else None
            await action_service.submit(
                platform,
                battle.id,
                referee.participant.id,
                "ship.add",
                {"definition": library()[resolved], "owner": owner},
                uuid.uuid4().hex,
            )
        links = {"Referee": f"{base_url}/join#{referee.token}"}
        links.update({n: f"{base_url}/join#{s.token}" for n, s in seats.items()})
        links["Spectator"] = f"{base_url}/join#{watcher.token}"
        made.append({"battle": name, "id": battle.id, "links": links})
    return made


def saved_links(path: Path = LINKS_FILE) -> list[dict[str, Any]] | None:
    if path.exists():
        return json.loads(path.read_text())
    return None


def save_links(links: list[dict[str, Any]], path: Path = LINKS_FILE) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(links, indent=1))
