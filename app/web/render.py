"""Templates and the per-viewer fragments pushed over the websocket."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi.templating import Jinja2Templates
from sqlalchemy.ext.asyncio import AsyncSession

from app.models import Battle, Participant
from app.rules.clock import STEP_LABELS
from app.rules.registry import ACTIONS
from app.services.library import ships_for
from app.services.views import read_battle, visible_log

ROOT = Path(__file__).resolve().parent.parent.parent
templates = Jinja2Templates(directory=str(ROOT / "templates"))
env = templates.env
env.globals["STEP_LABELS"] = STEP_LABELS
env.globals["ACTIONS"] = ACTIONS


PART_TEMPLATES = {path.stem for path in (ROOT / "templates" / "parts").glob("*.html")}


def _part_template(name: str) -> str | None:
    """The partial that draws a ship part, if that part has one (templates/parts/<name>.html)."""
    return f"parts/{name}.html" if name in PART_TEMPLATES else None


def _pct(value: float, total: float) -> float:
    return 0.0 if not total else max(0.0, min(100.0, 100.0 * value / total))


env.globals["part_template"] = _part_template
env.filters["pct"] = _pct


async def page_context(
    session: AsyncSession,
    battle: Battle,
    participant: Participant,
    csrf: str,
    log_limit: int | None = 200,
    log_since: int = 0,
    at_seq: int | None = None,
) -> dict[str, Any]:
    """What every battle template needs, for this viewer only (as of `at_seq` for a replay)."""
    data, viewer, people = await read_battle(session, battle, participant, at_seq)
    state = data["state"]
    names = {p.id: p.name for p in people}
    log = await visible_log(
        session, battle, viewer, since=log_since, until=at_seq, limit=log_limit, names=names
    )
    return {
        "battle": {
            "id": battle.id,
            "name": battle.name,
            "system": battle.system,
            "clock": state["clock"],
            "status": battle.status,
            "dice_mode": battle.dice_mode,
        },
        "data": data,
        "state": state,
        "viewer": viewer,
        "me": participant,
        "seq": data["seq"],
        "csrf_token": csrf,
        "log": log,
        "people": [p for p in people if p.active],
        "names": names,
        "library": ships_for(battle.system) if participant.role == "referee" else {},
    }


def render(name: str, context: dict[str, Any]) -> str:
    return env.get_template(name).render(context)


async def live_fragments(
    session: AsyncSession, battle: Battle, participant: Participant, since: int, csrf: str
) -> tuple[str, int]:
    """The regions that change, as <hx-partial> elements for htmx, rendered for this viewer."""
    context = await page_context(session, battle, participant, csrf, log_limit=None, log_since=since)
    return render("partials/live_update.html", context), context["seq"]
