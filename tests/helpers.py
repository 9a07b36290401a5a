"""Test helpers that drive the real doors: REST set-up, session cookies from join links, and
rendering one ship part's template the way a page does (with the viewer's offers and display values)."""

from __future__ import annotations

import asyncio
import inspect
import json
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import httpx

from app.rules.state import BattleState
from app.rules.views import Viewer, battle_view
from app.services.reading.views import offers_for
from app.web.drawing.render import Offers, damage_traits, display_values, render

LIBRARY = Path(__file__).resolve().parent.parent / "app" / "shipdata" / "library"


async def eventually(
    predicate: Callable[[], Any], timeout: float = 10.0, interval: float = 0.02, what: str = ""
) -> Any:
    """Wait for a condition instead of sleeping for a guess: poll `predicate` (a plain or an async
    callable) every `interval` seconds until it returns something true, and return that. Past
    `timeout` the test fails, naming `what` it waited for and the last value seen. The timeout is a
    deadline for a broken behaviour, never a claim about speed: a working one passes well inside it."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if inspect.isawaitable(value):
            value = await value
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(
                f"still waiting after {timeout} s for {what or predicate!r} (last: {value!r})"
            )
        await asyncio.sleep(interval)


def eventually_sync(
    predicate: Callable[[], Any], timeout: float = 10.0, interval: float = 0.02, what: str = ""
) -> Any:
    """`eventually` for a test without an event loop."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(
                f"still waiting after {timeout} s for {what or predicate!r} (last: {value!r})"
            )
        time.sleep(interval)


class Elements(HTMLParser):
    """Every start tag's attributes, by id, and the forms' action types."""

    def __init__(self) -> None:
        super().__init__()
        self.by_id: dict[str, dict[str, Any]] = {}
        self.actions: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if "id" in found:
            self.by_id[found["id"]] = {"tag": tag, **found}
        if tag == "input" and found.get("name") == "action_type":
            self.actions.append(found.get("value") or "")


def part_context(
    state: BattleState, ship_id: str, part: str, viewer: Viewer, seq: int = 7, **battle: Any
) -> dict[str, Any]:
    """What a page gives a part template: the viewer's view, what they may do now, display values."""
    view = battle_view(state, viewer)
    ship = view["ships"][ship_id]
    return {
        "ship": ship,
        "part": ship["parts"][part],
        "viewer": viewer,
        "battle": SimpleNamespace(id="b1", system=state.system, clock=view["clock"], **battle),
        "state": view,
        "seq": seq,
        "csrf_token": "tok",
        "offers": Offers(offers_for(state, viewer)),
        "display": display_values(state, view),
        "damage_traits": damage_traits(state),
    }


def render_part(
    state: BattleState, ship_id: str, part: str, viewer: Viewer, seq: int = 7, **battle: Any
) -> tuple[str, Elements]:
    """A part's template rendered by the app's own template environment with `part_context`, and
    its elements parsed."""
    html = render(f"parts/{part}.html", part_context(state, ship_id, part, viewer, seq, **battle))
    parsed = Elements()
    parsed.feed(html)
    return html, parsed


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
    options: dict[str, Any] | None = None,
) -> Table:
    """Create a battle, seats and ships through the REST API, as a bot referee would. These battles
    let any commander move the clock ("always"), as the rule tests drive it; the readiness tests
    pass `options={}` for the default (a step ends when nobody is pending)."""
    body = {
        "name": "Test battle",
        "system": system,
        "dice_mode": dice_mode,
        "options": {"players_advance_clock": "always"} if options is None else options,
    }
    r = await c.post("/api/v1/battles", json=body)
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
    """The session cookie a fresh browser gets from a join link (a browser already seated would be
    asked to confirm the switch first)."""
    async with httpx.AsyncClient(transport=c._transport, base_url=c.base_url) as fresh:
        r = await fresh.get(f"/join/{token}", follow_redirects=False)
        assert r.status_code == 303, r.text
        return r.cookies["starboard_session"]


async def traveller_table(c: httpx.AsyncClient, **options: Any) -> Table:
    """Ann's Arbellatra against Bob's Dauntless (the Traveller demo's pair), made through the REST
    API as `set_table` makes any table; `options` are set_table's (dice_mode, options, …)."""
    ships = {
        "arbellatra": (ship_def("tr-arbellatra-cruiser"), "ann"),
        "dauntless": (ship_def("tr-dauntless-battlecruiser"), "bob"),
    }
    return await set_table(c, system="traveller", players=("ann", "bob"), ships=ships, **options)
