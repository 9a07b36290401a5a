"""Player requests to the referee: undo my last action (with a reason), and — where the
battle's `damage_needs_approval` option is on — damage a player enters on an enemy ship, which waits
in the same queue. The referee approves (undo: the existing `battle.undo`; damage: submitted through
`submit` as the player entered it) or refuses with a reason; either way the player is told in a
private chat line from the referee. A request is seen by the referee and its player only. A
stranger's claim of an open seat (app/services/table/lobby.py) waits in the same queue, named for
the seat and seen by the referee alone; approving it runs no action."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any, cast

from sqlalchemy import func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.db import existing
from app.models import ActionLog, Battle, Participant, TableRequest
from app.rules import STANDARD, Rules
from app.services.bus import TableChanged
from app.services.errors import Forbidden, Invalid, NotFound
from app.services.history.replay import HISTORY_ACTIONS, UNDO
from app.services.platform import Platform
from app.services.store.battles import get_battle, get_participant, load_state, participants
from app.services.store.seats import ASKERS, DAMAGE, utcnow
from app.services.table import chat, lobby
from app.services.write import actions as action_service
from app.services.write.actions import Command

TIMEOUT = "timeout"  # a request the battle clock made for the referee when a seat's time ran out


@dataclass
class Shown:
    id: int
    who: str
    participant_id: str
    kind: str
    target_seq: int | None
    summary: str
    reason: str
    status: str
    answer: str | None

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _reason(text: Any, field: str = "reason") -> str:
    value = str(text or "").strip()
    if not 3 <= len(value) <= 300:
        raise Invalid("give a reason of 3 to 300 characters", field)
    return value


async def last_row(session: AsyncSession, battle: Battle) -> ActionLog | None:
    return await session.scalar(
        select(ActionLog).where(ActionLog.battle_id == battle.id, ActionLog.seq == battle.seq)
    )


async def may_ask_undo(session: AsyncSession, battle: Battle, participant: Participant) -> int | None:
    """The seq of the action this player may ask to undo: the battle's last action, if it is theirs."""
    if not could_ask_undo(battle, participant):
        return None
    return undo_target(await last_row(session, battle), participant)


def could_ask_undo(battle: Battle, participant: Participant) -> bool:
    """Whether this seat may ask for an undo at all now (else the last row need not be read)."""
    return participant.role in ASKERS and battle.status != "finished" and battle.seq != 0


def undo_target(row: ActionLog | None, participant: Participant) -> int | None:
    """`may_ask_undo` given the battle's last row (read once for every seat of a table)."""
    if row is None or row.actor_id != participant.id or row.action_type in HISTORY_ACTIONS:
        return None
    return row.seq


async def ask_undo(
    platform: Platform, battle_id: str, participant_id: str | None, reason: Any
) -> TableRequest:
    text = _reason(reason)
    async with platform.transaction() as work:
        session = work.session
        battle = await get_battle(session, battle_id)
        me = await get_participant(session, battle_id, participant_id)
        if me.role not in ASKERS:
            raise Forbidden("only a player asks the referee to undo their action")
        target = await may_ask_undo(session, battle, me)
        if target is None:
            raise Invalid("you may only ask to undo your own action while it is the battle's last", "seq")
        already = await session.scalar(
            select(TableRequest).where(
                TableRequest.battle_id == battle_id,
                TableRequest.kind == "undo",
                TableRequest.target_seq == target,
                TableRequest.status == "pending",
            )
        )
        if already is not None:
            raise Invalid(f"you already asked to undo action {target}", "seq")
        req = TableRequest(
            battle_id=battle_id,
            participant_id=me.id,
            kind="undo",
            target_seq=target,
            reason=text,
            status="pending",
        )
        session.add(req)
        await session.flush()
        work.emit(TableChanged(battle_id))
    return req


def _summary(req: TableRequest, ship_names: dict[str, str], seat_names: dict[str, str]) -> str:
    if req.kind == lobby.SEAT:  # a stranger's claim of an open seat (app/services/table/lobby.py)
        return lobby.claim_summary(req, seat_names.get(req.participant_id, "?"))[1]
    if req.kind == "undo":
        return f"undo action #{req.target_seq}"
    if req.kind == TIMEOUT:  # the battle clock ran out on this seat (services/table/clocks.py)
        return f"time ran out (action #{req.target_seq}): mark the seat done?"
    p = (req.payload or {}).get("payload", {})
    target = ship_names.get(str(p.get("target")), str(p.get("target")))
    source = ship_names.get(str(p.get("source")), str(p.get("source") or "?"))
    where = f" ({p['direction']})" if p.get("direction") else ""
    return f"damage {p.get('amount', '?')} on {target} from {source}{where}"


async def requests_for(
    session: AsyncSession, battle: Battle, viewer: Participant, limit: int = 20, rules: Rules = STANDARD
) -> list[Shown]:
    """The referee's queue (every request), or a player's own requests; nothing for others."""
    return (await requests_by_seat(session, battle, [viewer], limit, rules))[viewer.id]


def _sees(viewer: Participant, row: TableRequest) -> bool:
    """The referee sees every request; a player their own (a seat claim names the seat, not its
    asker: only the referee reads it); nobody else any."""
    if viewer.role == "referee":
        return True
    return viewer.role in ASKERS and row.participant_id == viewer.id and row.kind != lobby.SEAT


async def requests_by_seat(
    session: AsyncSession,
    battle: Battle,
    viewers: list[Participant],
    limit: int = 20,
    rules: Rules = STANDARD,
) -> dict[str, list[Shown]]:
    """`requests_for` of each viewer, for all of them at once: one statement reads the newest
    `limit` requests of the battle and the newest `limit` of each player's own (ranked in the
    database), and each viewer is given those it sees (`_sees`); the state is loaded for the ships'
    names only when a damage request is shown."""
    asking = [v for v in viewers if v.role == "referee" or v.role in ASKERS]
    if not asking:
        return {v.id: [] for v in viewers}
    own = TableRequest.kind == lobby.SEAT  # ranked apart: a player's own list leaves claims out
    ranked = (
        select(
            TableRequest.id,
            func.row_number().over(order_by=TableRequest.id.desc()).label("overall"),
            func.row_number()
            .over(partition_by=(TableRequest.participant_id, own), order_by=TableRequest.id.desc())
            .label("own"),
        )
        .where(TableRequest.battle_id == battle.id)
        .subquery()
    )
    query = (
        select(TableRequest)
        .join(ranked, ranked.c.id == TableRequest.id)
        .where(or_(ranked.c.overall <= limit, ranked.c.own <= limit))
        .order_by(TableRequest.id.desc())
    )
    rows = list(await session.scalars(query))
    seen = {v.id: [r for r in rows if _sees(v, r)][:limit] for v in viewers}
    shown = {r.id: r for found in seen.values() for r in found}
    names = {p.id: p.name for p in await participants(session, battle.id)} if shown else {}
    ships: dict[str, str] = {}
    if any(r.kind not in (lobby.SEAT, "undo", TIMEOUT) for r in shown.values()):  # a damage request
        state, _ = await load_state(session, battle.id, rules)
        ships = {sid: s.name for sid, s in state.ships.items()}
    return {
        v.id: [
            Shown(
                r.id,
                lobby.claim_summary(r, "")[0]
                if r.kind == lobby.SEAT
                else names.get(r.participant_id, "someone"),
                r.participant_id,
                r.kind,
                r.target_seq,
                _summary(r, ships, names),
                r.reason,
                r.status,
                r.answer,
            )
            for r in found
        ]
        for v, found in ((v, seen[v.id]) for v in viewers)
    }


async def decide(
    platform: Platform,
    battle_id: str,
    referee_id: str | None,
    request_id: int,
    approve: bool,
    answer: Any = "",
) -> TableRequest:
    """The referee approves (the undo or the damage goes through submit) or refuses (with a reason)."""
    async with platform.db.reader() as session:
        me = await get_participant(session, battle_id, referee_id)
        if me.role != "referee":
            raise Forbidden("only the referee answers requests")
        req = await session.get(TableRequest, request_id)
        if req is None or req.battle_id != battle_id:
            raise NotFound("no such request", "request")
        if req.status != "pending":
            raise Invalid(f"that request was already {req.status}", "request")
        player = await session.get(Participant, req.participant_id)
        battle = await get_battle(session, battle_id)
    refusal = "" if approve else _reason(answer, "answer")
    result_seq = None
    if req.kind == lobby.SEAT:  # a seat claim: no action; the claimer collects the seat with their secret
        async with platform.transaction() as work:
            session = work.session
            row = await existing(session, TableRequest, request_id)
            if row.status != "pending":  # another claim for the seat was approved meanwhile
                raise Invalid(f"that request was already {row.status}", "request")
            if approve:
                await lobby.grant_claim(session, row)
            row.status = "approved" if approve else "refused"
            row.answer = refusal or None
            row.decided_at = utcnow()
            work.emit(TableChanged(battle_id))
        return row
    if approve:
        if req.kind == "undo":
            if battle.seq != req.target_seq:
                raise Invalid(
                    f"action #{req.target_seq} is no longer the last action; refuse the request instead",
                    "request",
                )
            # The log is public: it says who asked, not the reason the player gave the referee.
            name = player.name if player else "a player"
            cmd = Command(
                battle_id,
                me.id,
                UNDO,
                {"reason": f"at {name}'s request (#{req.id})"[:300]},
                f"request-{req.id}-{uuid.uuid4().hex[:8]}",
            )
        elif req.kind == TIMEOUT:  # approved: the seat is done with this step, as "Done" would say
            cmd = Command(battle_id, req.participant_id, "step.ready", {}, f"request-{req.id}")
        else:
            body = req.payload or {}
            cmd = Command(
                battle_id,
                req.participant_id,
                DAMAGE,
                dict(body.get("payload") or {}),
                f"request-{req.id}",
                None,
                body.get("dice"),
                approved=True,
            )
        applied = cast(action_service.Submitted, await action_service.submit(platform, cmd))
        result_seq = applied.seq  # approved: applied, never queued again
    async with platform.db.transaction() as session:
        row = await existing(session, TableRequest, request_id)
        row.status = "approved" if approve else "refused"
        row.answer = refusal or None
        row.result_seq = result_seq
        row.decided_at = utcnow()
    what = {"undo": "undo", TIMEOUT: "time-out"}.get(req.kind, "damage")
    note = (
        f"Your {what} request is approved (action #{result_seq})."
        if approve
        else f"Your {what} request is refused: {refusal}"
    )
    await chat.post(platform, battle_id, me.id, note, to=req.participant_id, limited=False)
    return row
