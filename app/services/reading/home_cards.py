"""The home page's cards: each battle a browser holds a seat in, with that seat's role and whose
move it is now — so a player with several battles open sees where they are wanted without opening
each one. Read from the same turn bar the battle's own page draws."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession

from app.models import Battle, Participant
from app.rules import Rules
from app.rules.views import viewer_for
from app.services.reading.views import turn_bar
from app.services.store.battles import load_state, participants, seats_held


@dataclass(frozen=True)
class HomeCard:
    """One battle on the home page as this browser's seat sees it."""

    battle: Battle
    seat: Participant
    your_move: bool
    waiting_on: list[str]  # names of those the step waits on now (the referee's name included)
    waiting_for: str | None  # what the step waits for beyond "done" (a die, the referee's roll)
    finished: bool


async def home_cards(
    session: AsyncSession, rules: Rules, seats: dict[str, str], keys: dict[str, str] | None = None
) -> list[HomeCard]:
    """The cards of the seats a browser still holds (battle id → participant id), latest first."""
    cards = []
    for seat in await seats_held(session, seats, keys):
        battle = await session.get(Battle, seat.battle_id)
        if battle is None:
            continue
        state, _ = await load_state(session, battle.id, rules)
        people = await participants(session, battle.id)
        bar = turn_bar(state, viewer_for(seat.id, seat.role, state), people)
        cards.append(
            HomeCard(battle, seat, bar["your_move"], bar["waiting_on"], bar["waiting_for"], state.finished)
        )
    return sorted(cards, key=lambda c: c.battle.updated_at, reverse=True)
