"""A battle as a file: export a battle's definitions, seats, options and whole log with
every die; import a file as a new battle whose log is replayed — refused, naming the first seq, when
the replay does not reproduce what the file says happened. The format is `starboard.battle/1`,
described by BATTLE_FILE_SCHEMA (served at GET /api/v1/schemas/battle-file; docs/battle-file.md)."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from pydantic import ValidationError
from sqlalchemy.ext.asyncio import AsyncSession

from app.db import existing
from app.models import ActionLog, Battle, Checkpoint, Snapshot, TableSettings
from app.rules import Action, Rules
from app.rules.core import Event
from app.rules.dice import ReplayDice, seed_commitment
from app.rules.engine import apply_action
from app.rules.state import BattleState
from app.rules.views import viewer_for
from app.services.errors import Invalid
from app.services.history.records import IMPORTED_DICE, check_rolls
from app.services.history.replay import (
    HISTORY_ACTIONS,
    UNDO,
    HistoryEntry,
    StackWalk,
    history_entry,
    log_rows,
)
from app.services.history.wordings import in_current_wording
from app.services.platform import Platform
from app.services.store.battles import add_participant, create_battle, get_battle, participants

FORMAT = "starboard.battle/1"
SHIP_ADD = "ship.add"

_ROLL = {
    "type": "object",
    "required": ["sides", "value"],
    "properties": {
        "sides": {"type": "integer", "minimum": 1},
        "value": {"type": "integer", "minimum": 1},
        "purpose": {"type": ["string", "null"]},
    },
}

_EARLIER = {
    "type": "object",
    "required": ["through_seq", "battle", "seed_sha256", "seed"],
    "properties": {
        "through_seq": {"type": "integer", "minimum": 1},
        "battle": {"type": "string", "description": "the id of the battle that rolled them"},
        "seed_sha256": {"type": "string", "description": "that battle's commitment, shown from its start"},
        "seed": {"type": ["string", "null"], "description": "hex; once that battle has ended"},
    },
}

BATTLE_FILE_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "starboard.battle/1",
    "title": "A Starboard battle file",
    "type": "object",
    "required": ["format", "battle", "seats", "ships", "log"],
    "properties": {
        "format": {"const": FORMAT},
        "battle": {
            "type": "object",
            "required": ["id", "name", "system", "dice_mode", "options", "status", "seed_sha256", "seed"],
            "properties": {
                "id": {"type": "string", "description": "the battle's id where it was exported from"},
                "name": {"type": "string", "minLength": 1, "maxLength": 120},
                "system": {"type": "string", "description": "game system key (GET /api/v1/systems)"},
                "dice_mode": {"enum": ["seeded", "physical"]},
                "options": {"type": "object"},
                "status": {"enum": ["active", "finished"]},
                "seq": {"type": "integer", "minimum": 0},
                "seed_sha256": {"type": "string", "description": "the seed's commitment, from the start"},
                "seed": {
                    "type": ["string", "null"],
                    "description": "hex; only once the battle has ended and the seed is revealed",
                },
                "imported_dice": {
                    "type": "array",
                    "description": "where the dice before an import were rolled, oldest first: log seqs up"
                    " to `through_seq` in `battle`, from its seed (null until that battle has ended)",
                    "items": _EARLIER,
                },
            },
        },
        "seats": {
            "type": "array",
            "description": "every participant, without tokens; log rows name them by `id`",
            "items": {
                "type": "object",
                "required": ["id", "name", "role", "active"],
                "properties": {
                    "id": {"type": "string", "pattern": "^[0-9a-f]{16,32}$"},
                    "name": {"type": "string", "minLength": 1, "maxLength": 80},
                    "role": {"enum": ["referee", "player", "spectator", "bot"]},
                    "active": {"type": "boolean"},
                },
            },
        },
        "ships": {
            "type": "array",
            "description": "each ship's definition as it was added (from the log's ship.add rows)",
            "items": {
                "type": "object",
                "required": ["seq", "definition", "owner"],
                "properties": {
                    "seq": {"type": "integer"},
                    "definition": {"type": "object"},
                    "owner": {"type": ["string", "null"]},
                },
            },
        },
        "log": {
            "type": "array",
            "description": "every action in order (seq 1, 2, …) with its dice and recorded events",
            "items": {
                "type": "object",
                "required": [
                    "seq",
                    "action_id",
                    "actor",
                    "actor_role",
                    "action_type",
                    "payload",
                    "dice",
                    "events",
                ],
                "properties": {
                    "seq": {"type": "integer", "minimum": 1},
                    "action_id": {"type": "string", "minLength": 1, "maxLength": 64},
                    "actor": {"type": ["string", "null"], "description": "a seat's id"},
                    "actor_role": {"type": "string", "minLength": 1, "maxLength": 20},
                    "action_type": {"type": "string", "minLength": 1, "maxLength": 60},
                    "clock": {"type": "string", "maxLength": 60},
                    "at": {"type": "string", "format": "date-time"},
                    "payload": {"type": "object"},
                    "dice": {"type": "array", "items": _ROLL},
                    "events": {"type": "array", "items": {"type": "object"}},
                },
            },
        },
    },
}


async def export_battle(session: AsyncSession, battle: Battle) -> dict[str, Any]:
    """The battle as a file: never a token, and the seed only once it is revealed (the end)."""
    rows = await log_rows(session, battle.id)
    people = await participants(session, battle.id)
    table = await session.get(TableSettings, battle.id)
    earlier = (table.options.get(IMPORTED_DICE) if table is not None else None) or []
    return {
        "format": FORMAT,
        "battle": {
            "id": battle.id,
            "name": battle.name,
            "system": battle.system,
            "dice_mode": battle.dice_mode,
            "options": battle.options,
            "status": battle.status,
            "seq": battle.seq,
            "seed_sha256": battle.seed_hash,
            "seed": battle.seed if battle.status == "finished" else None,
            **({IMPORTED_DICE: earlier} if earlier else {}),
        },
        "seats": [{"id": p.id, "name": p.name, "role": p.role, "active": p.active} for p in people],
        "ships": [
            {"seq": r.seq, "definition": r.payload.get("definition"), "owner": r.payload.get("owner")}
            for r in rows
            if r.action_type == SHIP_ADD
        ],
        "log": [
            {
                "seq": r.seq,
                "action_id": r.action_id,
                "actor": r.actor_id,
                "actor_role": r.actor_role,
                "action_type": r.action_type,
                "clock": r.clock,
                "at": r.created_at.isoformat(),
                "payload": r.payload,
                "dice": r.dice,
                "events": r.events,
            }
            for r in rows
        ],
    }


class Refused(Invalid):
    """A file whose replay does not reproduce its log (422, naming the first seq that differs)."""


SEAT_ID = re.compile(r"[0-9a-f]{16,32}")  # the ids Starboard makes (16 hex digits)


def _bad(message: str, field: str) -> Invalid:
    return Invalid(f"{field}: {message}", field)


def _text(value: Any, field: str, longest: int, *, empty: bool = False) -> None:
    if not isinstance(value, str) or len(value) > longest or (not value and not empty):
        raise _bad(f"must be text of {'0' if empty else '1'} to {longest} characters", field)


def _shape(data: Any) -> None:
    """What replaying and storing rely on (the JSON Schema says the rest): refused in words, naming
    the field, before anything is created."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise _bad(f'a battle file says "format": "{FORMAT}"', "format")
    for key, kind in (("battle", dict), ("seats", list), ("log", list)):
        if not isinstance(data.get(key), kind):
            raise _bad(f"missing or not a{'n object' if kind is dict else ' list'}", key)
    if not isinstance(data["battle"].get("options", {}), dict):
        raise _bad("must be an object", "battle.options")
    ids = set()
    for i, seat in enumerate(data["seats"]):
        if (
            not isinstance(seat, dict)
            or not isinstance(seat.get("id"), str)
            or not SEAT_ID.fullmatch(seat["id"])
        ):
            raise _bad("each seat needs an id of 16 to 32 hex digits", f"seats.{i}.id")
        if seat["id"] in ids:
            raise _bad("seat ids must differ", f"seats.{i}.id")
        ids.add(seat["id"])
    for i, row in enumerate(data["log"]):
        if not isinstance(row, dict) or row.get("seq") != i + 1:
            raise Refused(
                f"log[{i}]: seq {i + 1} expected (the log is numbered 1, 2, …)", f"log.{i}.seq", seq=i + 1
            )
        for key, kind in (("payload", dict), ("dice", list), ("events", list)):
            if not isinstance(row.get(key), kind):
                raise _bad("missing or of the wrong kind", f"log.{i}.{key}")
        for j, event in enumerate(row["events"]):
            _event(event, f"log.{i}.events.{j}")
        _text(row.get("action_id"), f"log.{i}.action_id", 64)
        _text(row.get("action_type"), f"log.{i}.action_type", 60)
        _text(row.get("actor_role"), f"log.{i}.actor_role", 20)
        _text(row.get("clock", ""), f"log.{i}.clock", 60, empty=True)
        if row.get("actor") is not None and row["actor"] not in ids:
            raise _bad("must be the id of one of the file's seats, or null", f"log.{i}.actor")
    if len({row["action_id"] for row in data["log"]}) != len(data["log"]):
        raise _bad("every action id must differ", "log")


def _event(value: Any, field: str) -> None:
    """Every recorded event, whatever its row's kind, has the shape of the events the log writes."""
    try:
        if not isinstance(value, dict):
            raise ValueError("not an object")
        Event.model_validate(value, strict=True)
    except (ValueError, ValidationError):
        raise _bad("not an event as the log writes them (kind, text, visibility, …)", field) from None


class _FileRow:
    """A file's row as the history functions read an earlier row (line_of, history_entry)."""

    def __init__(self, row: dict[str, Any]) -> None:
        self.seq: int = row["seq"]
        self.action_type: str = row["action_type"]
        self.payload: dict[str, Any] = row["payload"]
        self.events: list[dict[str, Any]] = row["events"]


def _history_row(row: dict[str, Any], walk: StackWalk, rows: dict[int, _FileRow]) -> HistoryEntry:
    """An undo, redo or rewind row rebuilt from the log before it, by the same pure work a live one
    is made by: its reason checked as the door checks it, its target and stored payload worked out
    (never taken from the file) and compared; the caller compares the rebuilt event. An undo from
    before undo named the action it undid (no `_undoes`) cannot be checked and is refused."""
    kind, given = row["action_type"], row["payload"]
    if row["dice"]:
        raise ValueError("an undo, redo or rewind rolls no dice")
    if kind == UNDO and "_undoes" not in given:
        raise ValueError(
            "an undo written by an older Starboard (it does not name the action it undid, `_undoes`);"
            " such files cannot be checked and are not imported"
        )
    public = {k: v for k, v in given.items() if not k.startswith("_")}
    body = HISTORY_ACTIONS[kind].payload.model_validate(public)
    entry = history_entry(body, walk.tops(), row["seq"], rows.get)
    if entry.stored != given:
        raise ValueError("what it returns to is not what the log before it makes of it")
    return entry


def replay_file(
    rules: Rules,
    system: str,
    options: dict[str, Any],
    log: list[dict[str, Any]],
    every: int,
    server_rolls: bool = True,
) -> tuple[BattleState, dict[int, BattleState]]:
    """Replay the file's log from a new battle, checking each action reproduces its recorded events
    and uses exactly its recorded dice; the final state and the states to keep as checkpoints.
    History rows (undo, redo, rewind) return to the state their recorded target names."""
    state = rules.new_battle(system, options)
    kept: dict[int, BattleState] = {0: state}
    checkpoints: dict[int, BattleState] = {}
    walk = StackWalk()
    rows: dict[int, _FileRow] = {}
    for row in log:
        seq = row["seq"]
        try:
            if row["action_type"] in HISTORY_ACTIONS:
                entry = _history_row(row, walk, rows)
                state = kept[entry.target]
                if [entry.event(state).model_dump(mode="json")] != row["events"]:
                    raise ValueError("its recorded events are not what the log makes of it")
            else:
                actor = viewer_for(row["actor"] or "system", row["actor_role"], state)
                dice = ReplayDice(row["dice"], server_rolls=server_rolls)
                outcome = apply_action(state, Action(row["action_type"], row["payload"], actor), dice)
                if dice.recorded:
                    raise ValueError(f"{len(dice.recorded)} recorded dice were not used")
                made = [e.model_dump(mode="json") for e in outcome.events]
                if made != in_current_wording(row["events"], made):
                    raise ValueError("its recorded events are not what the rules make of it")
                state = outcome.state
        except Exception as exc:  # a rule's refusal, a wrong die, a different outcome: all refuse
            raise Refused(
                f"log seq {seq}: the replay does not reproduce it ({_why(exc)})", f"log.{seq - 1}", seq=seq
            ) from None
        kept[seq] = state
        walk.add(seq, row["action_type"], row["payload"])
        rows[seq] = _FileRow(row)
        if seq % every == 0:
            checkpoints[seq] = state
    return state, checkpoints


def _why(exc: Exception) -> str:
    return getattr(exc, "message", None) or str(exc) or type(exc).__name__


def _renamed(value: Any, ids: dict[str, str]) -> Any:
    """The value with every seat id of the file replaced by the new battle's: each JSON string that
    is exactly an old id (SEAT_ID: hex digits, so no word of the rules can be one) becomes the new."""
    text = json.dumps(value)
    for old, new in ids.items():
        text = text.replace(f'"{old}"', f'"{new}"')
    return json.loads(text)


HEX_SHA256 = re.compile(r"[0-9a-f]{64}")


def _seed_of(seed: Any, commitment: str, field: str) -> str | None:
    """A revealed seed as the file gives it (or None): hex whose SHA-256 is the commitment."""
    if seed is None:
        return None
    try:
        raw = bytes.fromhex(seed) if isinstance(seed, str) and seed else None
    except ValueError:
        raw = None
    if raw is None:
        raise _bad("must be the seed in hex, or null", field)
    if seed_commitment(raw) != commitment:
        raise _bad("its SHA-256 is not the commitment shown from the start (seed_sha256)", field)
    return seed


def _commitment(value: Any, field: str) -> str:
    if not isinstance(value, str) or not HEX_SHA256.fullmatch(value):
        raise _bad("must be the seed's SHA-256, 64 hex digits", field)
    return value


def _earlier(info: dict[str, Any], n: int) -> list[dict[str, Any]]:
    """The file's own `imported_dice` (the battles its battle was itself imported from), checked
    and cut at the first `n` log rows."""
    given = info.get(IMPORTED_DICE, [])
    if not isinstance(given, list):
        raise _bad("must be a list", f"battle.{IMPORTED_DICE}")
    out: list[dict[str, Any]] = []
    last = 0
    for i, earlier in enumerate(given):
        where = f"battle.{IMPORTED_DICE}.{i}"
        if not isinstance(earlier, dict):
            raise _bad("must be an object", where)
        through = earlier.get("through_seq")
        if type(through) is not int or through <= last:
            raise _bad(f"must be a seq after {last}", f"{where}.through_seq")
        last = through
        _text(earlier.get("battle"), f"{where}.battle", 64)
        commitment = _commitment(earlier.get("seed_sha256"), f"{where}.seed_sha256")
        seed = _seed_of(earlier.get("seed"), commitment, f"{where}.seed")
        if min(through, n) > (out[-1]["through_seq"] if out else 0):
            cut = min(through, n)
            out.append(
                {"through_seq": cut, "battle": earlier["battle"], "seed_sha256": commitment, "seed": seed}
            )
    return out


def imported_dice(info: dict[str, Any], n: int) -> list[dict[str, Any]]:
    """Where the dice of the file's first `n` log rows were rolled, oldest first: the battles the
    file was itself imported from, then the battle it was exported from, each with the last seq it
    rolled, its commitment and its seed once revealed. The new battle keeps this, so its own dice
    record checks each die against the seed that made it."""
    if info.get("dice_mode", "seeded") != "seeded" or n == 0:
        return []
    out = _earlier(info, n)
    commitment = _commitment(info.get("seed_sha256"), "battle.seed_sha256")
    seed = _seed_of(info.get("seed"), commitment, "battle.seed")
    if n > (out[-1]["through_seq"] if out else 0):
        _text(info.get("id"), "battle.id", 64)
        out.append({"through_seq": n, "battle": info["id"], "seed_sha256": commitment, "seed": seed})
    return out


IMPORTED = " (imported)"
NAME_MAX = 120


def imported_name(name: str) -> str:
    """An imported battle's name: the file's with "(imported)" after it, so a table that still has
    the original open tells the two apart in its list (once: a copy of a copy is not marked twice)."""
    if name.endswith(IMPORTED):
        return name
    return name[: NAME_MAX - len(IMPORTED)] + IMPORTED


async def import_battle(
    platform: Platform, session: AsyncSession, data: Any, name: str | None = None
) -> tuple[Battle, list[dict[str, Any]]]:
    """A new battle from a file: its own id, seed and tokens, its name the file's marked as imported
    (`name`: a fork's own); the file's seats (the first referee seat becomes the creator's), options
    and log replayed and checked under the platform's rules, seat cap and checkpoint spacing, in the
    caller's transaction. Returns the battle and the new seats, each with its token (shown once) and
    the file's id for it."""
    rules, every = platform.rules, platform.settings.checkpoint_every
    max_seats = platform.settings.max_seats_per_battle
    _shape(data)
    info = data["battle"]
    seats = data["seats"]
    referees = [s for s in seats if s.get("role") == "referee"]
    if not referees:
        raise Invalid("seats: a battle file needs a referee seat", "seats")
    earlier = imported_dice(info, len(data["log"]))
    battle, ref_seat = await create_battle(
        session,
        name if name is not None else imported_name(str(info.get("name", ""))),
        str(info.get("system", "")),
        dice_mode=str(info.get("dice_mode", "seeded")),
        options=info.get("options") or {},
        referee_name=str(referees[0].get("name") or "Referee"),
        rules=rules,
    )
    new_seats = [(referees[0], ref_seat)]
    for seat in seats:
        if seat is not referees[0]:
            made = await add_participant(
                session, battle, str(seat.get("name", "")), str(seat.get("role", "")), max_seats=max_seats
            )
            new_seats.append((seat, made))
    ids = {old["id"]: made.participant.id for old, made in new_seats}
    log = _renamed(data["log"], ids)
    state, checkpoints = await asyncio.to_thread(
        replay_file, rules, battle.system, dict(battle.options), log, every, battle.dice_mode == "seeded"
    )
    for old, made in new_seats:
        if old.get("active") is False:
            made.participant.active = False
    for row in log:
        session.add(
            ActionLog(
                battle_id=battle.id,
                seq=row["seq"],
                action_id=str(row["action_id"]),
                actor_id=row["actor"],
                actor_role=str(row["actor_role"]),
                action_type=row["action_type"],
                clock=str(row.get("clock", "")),
                payload=row["payload"],
                dice=row["dice"],
                events=row["events"],
                created_at=_when(row.get("at")),
            )
        )
    for seq, kept in checkpoints.items():
        session.add(Checkpoint(battle_id=battle.id, seq=seq, state=kept.model_dump(mode="json")))
    if earlier:  # kept beside the table's options: the rules' state stays the original's
        session.add(TableSettings(battle_id=battle.id, options={IMPORTED_DICE: earlier}))
    snap = await existing(session, Snapshot, battle.id)
    seq = len(log)
    snap.seq = seq
    snap.state = state.model_dump(mode="json")
    battle.seq = seq
    battle.turn = state.clock.turn
    battle.step = state.clock.step
    if state.finished:
        battle.status = "finished"
    await session.flush()
    return battle, [
        {
            "file_id": old["id"],
            "participant_id": made.participant.id,
            "name": made.participant.name,
            "role": made.participant.role,
            "token": made.token,
        }
        for old, made in new_seats
    ]


def _when(at: Any) -> datetime:
    try:
        when = datetime.fromisoformat(str(at))
    except ValueError:
        return datetime.now(UTC)
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def verify_file(data: Any) -> dict[str, Any]:
    """Every server-rolled die of a file against its revealed seed (anyone may check, no server
    needed): the seed must hash to the commitment the battle showed from the start, and roll
    `index` of action `seq` must be what `derive_roll` makes of it — with the id and seed of the
    battle that rolled it, for dice made before the file's battle was itself imported
    (`imported_dice`). Returns how many rolls were checked, those that do not match, each with the
    value the seed makes (`expected`), those rolled where the seed is not revealed yet
    (`unchecked`) and the sources; a file without its own seed (not ended, or physical dice) is
    refused."""
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("battle"), dict):
        raise _bad(f'a battle file says "format": "{FORMAT}"', "format")
    info = data["battle"]
    if info.get("dice_mode") != "seeded":
        raise _bad(
            "the players entered these dice (physical): there is no seed to check them by", "battle.dice_mode"
        )
    if not isinstance(info.get("seed"), str) or not info["seed"]:
        raise _bad(
            "the seed is revealed only once the battle has ended: export it after the end", "battle.seed"
        )
    log = data.get("log", [])
    commitment = _commitment(info.get("seed_sha256"), "battle.seed_sha256")
    own = {
        "through_seq": None,
        "battle": str(info.get("id", "")),
        "seed_sha256": commitment,
        "seed": _seed_of(info["seed"], commitment, "battle.seed"),
    }
    sources = [*_earlier(info, len(log)), own]
    rolls = [
        {"seq": row["seq"], "index": i, "sides": d["sides"], "value": d["value"], "purpose": d.get("purpose")}
        for row in log
        for i, d in enumerate(row["dice"])
    ]
    mismatches, unchecked = check_rolls(rolls, sources)
    return {"rolls": len(rolls), "mismatches": mismatches, "unchecked": unchecked, "sources": sources}


async def fork_battle(
    platform: Platform, session: AsyncSession, battle: Battle, seq: int
) -> tuple[Battle, list[dict[str, Any]]]:
    """A what-if: a new battle from the first `seq` entries of this one, made the way a file is
    imported (the same seats with new tokens, the log replayed and checked), so what was hidden at
    `seq` stays hidden from the same seats in the fork; it rolls from its own seed, and the original
    is left as it was. Returns what `import_battle` returns."""
    if isinstance(seq, bool) or not isinstance(seq, int) or not 1 <= seq <= battle.seq:
        raise Invalid(f"seq: a fork starts from a seq of 1 to {battle.seq}", "seq")
    data = await export_battle(session, battle)
    suffix = f" (what-if from seq {seq})"
    name = battle.name[: NAME_MAX - len(suffix)] + suffix
    data["battle"] = {**data["battle"], "name": name, "seed": None, "status": "running"}
    data["log"] = [row for row in data["log"] if row["seq"] <= seq]
    data["ships"] = [ship for ship in data["ships"] if ship["seq"] <= seq]
    return await import_battle(platform, session, data, name)


async def import_into(platform: Platform, data: Any) -> tuple[Battle, list[dict[str, Any]]]:
    """`import_battle` in one transaction, with the platform's checkpoint spacing and seat cap (the
    one call every door makes: REST, pages, CLI)."""
    async with platform.db.transaction() as session:
        return await import_battle(platform, session, data)


async def fork_into(
    platform: Platform, battle_id: str, seq: int | Callable[[int], int]
) -> tuple[Battle, list[dict[str, Any]]]:
    """`fork_battle` in one transaction. `seq` may be a function of the battle's own last seq (a
    page's form value is checked against it inside the same transaction)."""
    async with platform.db.transaction() as session:
        original = await get_battle(session, battle_id)
        at = seq(original.seq) if callable(seq) else seq
        return await fork_battle(platform, session, original, at)
