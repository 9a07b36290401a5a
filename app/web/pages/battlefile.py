"""A battle as a file from the pages: the referee's console downloads the file and starts
a what-if from any seq; the home page imports a file. The same services as REST
(`app/services/history/battlefile.py`); the new battle's referee seat is taken by this browser and its
join links are shown once, as for a battle created here."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from app.models import Battle
from app.services.errors import Forbidden, Invalid, ServiceError
from app.services.history.battlefile import export_battle, fork_into, import_into
from app.services.store.battles import get_battle
from app.services.store.tokens import hash_token
from app.web.battle_file_reader import file_download
from app.web.deps import PlatformDep, join_url
from app.web.middleware.limits import check_battle_creation
from app.web.middleware.security import take_seat
from app.web.numbers import whole_number
from app.web.pages.answers import _form, _refused, my_seat, uploaded_file
from app.web.pages.wizard import show_links

router = APIRouter(include_in_schema=False)


async def _referee(platform: Any, request: Request, battle_id: str) -> None:
    me = await my_seat(platform, request, battle_id)
    if me.role != "referee":
        raise Forbidden("only the referee may save the battle as a file or start a what-if from it")


def _seated(request: Request, battle: Battle, seats: list[dict[str, Any]]) -> Response:
    """This browser takes the new battle's referee seat; every seat's new link is shown on the
    join-links page until the referee dismisses it (as after the wizard)."""
    referee = seats[0]
    take_seat(request, battle.id, referee["participant_id"], hash_token(referee["token"]))
    links = [
        {
            "id": s["participant_id"],
            "name": s["name"],
            "role": s["role"],
            "url": join_url(request, s["token"]),
            "ships": [],
        }
        for s in seats[1:]
    ]
    return show_links(request, battle, links, referee_url=join_url(request, referee["token"]))


@router.get("/battles/{battle_id}/export.json")
async def download(battle_id: str, request: Request, platform: PlatformDep) -> Response:
    """The referee's download of the battle file (the same document as GET /api/v1/…/export)."""
    try:
        await _referee(platform, request, battle_id)
        async with platform.db.reader() as session:
            data = await export_battle(session, await get_battle(session, battle_id))
    except ServiceError as exc:
        return _refused(request, f"/battles/{battle_id}", exc)
    return file_download(data, f"battle-{battle_id}.json")


def _seq(raw: object, last: int) -> int:
    text = str(raw or "").strip()
    seq = whole_number(text, low=1, high=last)
    if seq is None:
        raise Invalid(f"seq: a what-if starts from a seq of 1 to {last}", "seq")
    return seq


@router.post("/battles/{battle_id}/fork")
async def what_if(battle_id: str, request: Request, platform: PlatformDep) -> Response:
    back = f"/battles/{battle_id}"
    try:
        form = await _form(request)
        await _referee(platform, request, battle_id)
        check_battle_creation(request)
        battle, seats = await fork_into(platform, battle_id, lambda last: _seq(form.get("seq"), last))
    except ServiceError as exc:
        return _refused(request, back, exc)
    return _seated(request, battle, seats)


@router.post("/battles/import")
async def import_page(request: Request, platform: PlatformDep) -> Response:
    try:
        battle, seats = await import_into(platform, await uploaded_file(request, "battle"))
    except ServiceError as exc:
        return _refused(request, "/", exc)
    return _seated(request, battle, seats)
