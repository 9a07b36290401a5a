"""The league services: who a finished battle rates (each side's league players; nobody when the end
names no winner, a side has no league player, or a player fought on two sides), the append-only
record rebuilt from scratch agreeing with itself and catching a row changed behind its back, and a
battle whose rating was lost (the process stopped after its end committed) rated with the next end
in its league, in the order they ended."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from openskill.models import PlackettLuce
from sqlalchemy import delete, update

from app.main import create_app
from app.models import LeagueBattle, RatingChange
from app.rules import STANDARD
from app.rules.state import BattleState, Ship
from app.services.bus import settle
from app.services.leagues import ratings, standings
from app.services.leagues.leagues import visible
from tests.conftest import settings_for
from tests.web.league_season import rated_game, season
from tests.web.test_identity_api import device


@pytest.fixture
async def app(db_url: str) -> AsyncIterator[Any]:
    application = create_app(settings_for(db_url))
    async with application.router.lifespan_context(application):
        yield application


def state_of(*ships: tuple[str, str, str]) -> BattleState:
    """A battle with ships (id, side, commander's participant id)."""
    state = STANDARD.new_battle("b5wars")
    for sid, side, owner in ships:
        state.ships[sid] = Ship(id=sid, name=sid.title(), owner=owner, side=side, system="b5wars")
    return state


def test_GEN_01_who_a_finished_battle_rates() -> None:
    state = state_of(("hawk", "Blue", "p1"), ("kite", "Blue", "p2"), ("crow", "Red", "p3"))
    holders = {"p1": ["ann"], "p2": ["bob"], "p3": ["cat"]}
    teams = ratings.teams_of(state, "Red", holders)
    assert not isinstance(teams, str)
    assert [(t.side, t.players, t.rank) for t in teams] == [("Blue", ["ann", "bob"], 2), ("Red", ["cat"], 1)]
    assert [ratings.result_of(t, teams) for t in teams] == ["loss", "win"]
    drawn = ratings.teams_of(state, "draw", holders)
    assert not isinstance(drawn, str) and {t.rank for t in drawn} == {1}
    assert ratings.result_of(drawn[0], drawn) == "draw"
    assert ratings.teams_of(state, None, holders) == "its end named no winner"
    assert ratings.teams_of(state, "Red", {"p1": ["ann"]}) == "the Red side has no league player"
    assert ratings.teams_of(state, "Red", {**holders, "p3": ["ann"]}) == (
        "a league player commanded ships on two sides"
    )


def test_rate_is_openskill_plackett_luce_with_its_defaults() -> None:
    model = PlackettLuce()
    a, b, c = model.rating(), model.rating(), model.rating()
    [[a2, b2], [c2]] = model.rate([[a, b], [c]], ranks=[2, 1])
    got = ratings.rate([[(25.0, 25 / 3), (25.0, 25 / 3)], [(25.0, 25 / 3)]], [2, 1])
    assert got[0][0] == pytest.approx((a2.mu, a2.sigma)) and got[1][0] == pytest.approx((c2.mu, c2.sigma))
    assert ratings.ordinal(25.0, 25 / 3) == pytest.approx(0.0)


async def test_the_record_rebuilt_from_scratch_agrees_and_catches_a_changed_row(app: Any) -> None:
    platform = app.state.platform
    async with device(app) as c:
        games = [("Ann", "Bob", "Blue"), ("Bob", "Cat", "draw"), ("Cat", "Ann", "Blue")]
        made = await season(platform, c, ("Ann", "Bob", "Cat"), games)
        await settle()
    async with platform.db.reader() as session:
        league = await visible(session, made.league_id, None)
        found = await standings.audit(session, league)
        kept = await standings.standings(session, league)
        changes = await standings.record(session, league.id)
        again = standings.rebuilt(await standings.members(session, league.id), changes)
    assert found.agrees and (found.battles, found.changes) == (3, 6)
    assert [(s.profile_id, s.games, s.wins, s.draws, s.losses) for s in kept] == [
        (s.profile_id, s.games, s.wins, s.draws, s.losses) for s in again
    ]
    assert [s.mu for s in kept] == pytest.approx([s.mu for s in again], abs=1e-12)
    async with platform.db.transaction() as session:
        await session.execute(
            update(RatingChange)
            .where(RatingChange.league_id == made.league_id, RatingChange.number == 2)
            .values(mu_after=RatingChange.mu_after + 1)
        )
    async with platform.db.reader() as session:
        tampered = await standings.audit(session, await visible(session, made.league_id, None))
    assert not tampered.agrees and tampered.differences


async def test_a_lost_rating_is_made_with_the_next_end_in_order(app: Any) -> None:
    platform = app.state.platform
    async with device(app) as c:
        made = await season(platform, c, ("Ann", "Bob"), [("Ann", "Bob", "Blue")])
        await settle()
        async with platform.db.transaction() as session:  # as if the process stopped after the end
            await session.execute(delete(RatingChange).where(RatingChange.league_id == made.league_id))
            await session.execute(
                update(LeagueBattle)
                .where(LeagueBattle.battle_id == made.battles[0])
                .values(number=None, rated_at=None)
            )
        second = await rated_game(platform, c, made, "Bob", "Ann", "Blue")
        await settle()
        assert await ratings.rate_league(platform, made.league_id) == 0  # each battle once only
    async with platform.db.reader() as session:
        rows = await standings.record(session, made.league_id)
    ann, bob = made.profiles["Ann"], made.profiles["Bob"]
    assert [(r.number, r.battle_id, r.profile_id, r.result) for r in rows] == [
        (1, made.battles[0], ann, "win"),
        (1, made.battles[0], bob, "loss"),
        (2, second, bob, "win"),
        (2, second, ann, "loss"),
    ]
