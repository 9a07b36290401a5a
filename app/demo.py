"""Demo battles from the sample library, so a newcomer can play at once. Their join links are
kept in var/demo_links.json (tokens are stored hashed in the database, so this file is the only copy)."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

from app.config import ROOT
from app.services.library.samples import library
from app.services.platform import Platform
from app.services.store.battles import add_participant, create_battle
from app.services.write import actions as action_service
from app.services.write.actions import Command

LINKS_FILE = ROOT / "var" / "demo_links.json"

DEMOS_FILE = ROOT / "app" / "shipdata" / "demos.json"


def demos() -> list[tuple[str, str, list[tuple[str, str | None, str | None]], dict[str, Any]]]:
    """Each demo battle as data: its name, game system, fleet of (library slug, seat name, and
    the side it fights for when the demo sets one), and battle options (the Traveller demo starts
    its ships on the range board at Long). A slug ending in '-' takes the next unused library ship
    with that prefix."""
    raw = json.loads(DEMOS_FILE.read_text())
    return [
        (
            d["name"],
            d["system"],
            [(*f[:2], f[2] if len(f) > 2 else None) for f in d["fleet"]],
            d.get("options", {}),
        )
        for d in raw
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
    for name, system, fleet, options in demos():
        async with platform.db.transaction() as session:
            battle, referee = await create_battle(session, name, system, options=options)
            seat_names = sorted({seat for _, seat, _ in fleet if seat})
            seats = {n: await add_participant(session, battle, n, "player") for n in seat_names}
            watcher = await add_participant(session, battle, "Spectator", "spectator")
        taken: set[str] = set()
        for slug, seat, side in fleet:
            resolved = _resolve(slug, taken)
            if resolved is None:
                continue
            taken.add(resolved)
            owner = seats[seat].participant.id if seat else None
            definition = library()[resolved] | ({"side": side} if side else {})
            add = {"definition": definition, "owner": owner}
            await action_service.submit(
                platform, Command(battle.id, referee.participant.id, "ship.add", add, uuid.uuid4().hex)
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
