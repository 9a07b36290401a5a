"""Templates and the per-viewer fragments pushed over the websocket."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi.templating import Jinja2Templates
from sqlalchemy.ext.asyncio import AsyncSession

from app.models import Battle, Participant
from app.rules import STANDARD, Rules
from app.services.history import preview as history_preview
from app.services.library import ships_for
from app.services.views import offers_for, read_battle, visible_log

ROOT = Path(__file__).resolve().parent.parent.parent
templates = Jinja2Templates(directory=str(ROOT / "templates"))
env = templates.env


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
    rules: Rules = STANDARD,
) -> dict[str, Any]:
    """What every battle template needs, for this viewer only (as of `at_seq` for a replay): the
    data, what the rules let this viewer do now (`offers`; none in a replay), and each shown part's
    display values (`display`), so templates draw what the rules give them."""
    data, viewer, people, game_state = await read_battle(session, battle, participant, at_seq, rules)
    state = data["state"]
    names = {p.id: p.name for p in people}
    log = await visible_log(
        session, battle, viewer, since=log_since, until=at_seq, limit=log_limit, names=names
    )
    live_referee = participant.role == "referee" and at_seq is None
    return {
        # the referee's undo/redo/rewind forms say what they would do (the log line of each)
        "history": await history_preview(session, battle.id) if live_referee else None,
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
        "library": ships_for(game_state.game.system) if participant.role == "referee" else {},
        "offers": Offers(offers_for(game_state, viewer) if at_seq is None else []),
        "display": display_values(game_state, state),
        "damage_traits": damage_traits(game_state),
    }


class Offers:
    """What the viewer may submit now, as templates ask it: `offers.allows("startrek.cloak", ship.id)`."""

    def __init__(self, offers: list[dict[str, Any]]) -> None:
        self._by_type = {o["type"]: o for o in offers}

    def allows(self, action: str, ship: str | None = None) -> bool:
        offer = self._by_type.get(action)
        if offer is None:
            return False
        return ship is None or not offer["ships"] or ship in offer["ships"]

    def ships(self, action: str) -> list[str]:
        """The ships the viewer may name as the acting ship of this action now (none: not offered)."""
        offer = self._by_type.get(action)
        return list(offer["ships"]) if offer else []

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self._by_type.values())

    def __bool__(self) -> bool:
        return bool(self._by_type)


def display_values(state: Any, shown: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """ship id → part name → the values the rules derive for that part's template (from what the
    viewer may see of it)."""
    game = state.game
    out: dict[str, dict[str, Any]] = {}
    for sid, ship_data in shown["ships"].items():
        ship = state.ships[sid]
        out[sid] = {
            name: game.display(state, ship, name, part)
            for name, part in ship_data["parts"].items()
            if isinstance(part, dict)
        }
    return out


def damage_traits(state: Any) -> list[tuple[str, str]]:
    """The weapon traits a damage entry may carry: those of the rulesets that play in this battle."""
    return [trait for ruleset in state.game.rulesets for trait in ruleset.damage_traits]


def render(name: str, context: dict[str, Any]) -> str:
    return env.get_template(name).render(context)


async def live_fragments(
    session: AsyncSession,
    battle: Battle,
    participant: Participant,
    since: int,
    csrf: str,
    rules: Rules = STANDARD,
) -> tuple[str, int]:
    """The regions that change, as <hx-partial> elements for htmx, rendered for this viewer."""
    context = await page_context(
        session, battle, participant, csrf, log_limit=None, log_since=since, rules=rules
    )
    return render("partials/live_update.html", context), context["seq"]
