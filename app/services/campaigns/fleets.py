"""Every change a referee makes to a campaign, each one event in its log, in one transaction.

Each command checks its input first and refuses naming the field (nothing is written then); it
reads the campaign as its log leaves it (`fold`), decides, and appends the outcome: the fleets are
never written anywhere but the log. A battle is started from the campaign by the wizard's own
creation service (`write/creation.py`), so the battle, its seats, its ships and the campaign's
`battle_started` commit together; its end comes back as one `battle_recorded` event (`record`)."""

from __future__ import annotations

import copy
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.models import Battle, Campaign, CampaignEvent, CampaignSeat
from app.rules import BattleState
from app.rules.core import NeedRoll, RuleError
from app.rules.dice import DiceSource, EnteredDice, SeededDice
from app.rules.generic.ending import winner
from app.rules.messages import first_error
from app.services.bus import ActionCommitted
from app.services.campaigns import carry, log, record
from app.services.campaigns.fold import DESTROYED, IN_BATTLE, READY
from app.services.errors import Forbidden, Invalid
from app.services.history.replay import LogRow, log_rows
from app.services.library.shiplib import clean_definition, library_chosen
from app.services.platform import Platform
from app.services.store.battles import Seat
from app.services.write.creation import SeatWanted, ShipWanted, create_prepared

# The campaign's set-up: a side's roster secret from the others until its ships fight; the Shadow
# pain track carrying from battle to battle (SH-01: "unless otherwise stated in the setup rules").
OPTIONS = {"secret_rosters": bool, "pain_carries": bool}
MAX_SHIPS = 200
MAX_SIDES = 8
MAX_PLAYERS = 32


def _name(value: str, field: str, most: int = 80) -> str:
    value = (value or "").strip()
    if not 1 <= len(value) <= most:
        raise Invalid(f"{field}: a name of 1 to {most} characters", field)
    return value


def check_options(options: Any) -> dict[str, Any]:
    if not isinstance(options, Mapping):
        raise Invalid("options: an object of set-up options", "options")
    out = {}
    for key, value in options.items():
        if key not in OPTIONS:
            raise Invalid(
                f"options.{key}: not a campaign option; known: {', '.join(OPTIONS)}", f"options.{key}"
            )
        if type(value) is not OPTIONS[key]:
            raise Invalid(f"options.{key}: true or false", f"options.{key}")
        out[key] = value
    return out


def referee_only(seat: CampaignSeat) -> None:
    if seat.role != "referee":
        raise Forbidden("only the campaign's referee may change it")


@dataclass(frozen=True)
class Made:
    campaign: Campaign
    referee: log.SeatMade


async def create(
    platform: Platform, name: str, system: str, options: Mapping[str, Any], sides: list[str]
) -> Made:
    """A campaign for one game system, its referee's seat and its sides."""
    name = _name(name, "name", 120)
    if system not in platform.rules.systems:
        raise Invalid(f"system: one of {', '.join(platform.rules.systems)}", "system")
    setup = check_options(options)
    clean = [_name(s, f"sides.{i}", 40) for i, s in enumerate(sides)]
    if len(set(clean)) != len(clean):
        raise Invalid("sides: each side once", "sides")
    if len(clean) > MAX_SIDES:
        raise Invalid(f"sides: at most {MAX_SIDES}", "sides")
    async with platform.db.transaction() as session:
        campaign = log.new_campaign(name, system, setup)
        session.add(campaign)
        await session.flush()
        referee = await log.add_seat(session, campaign.id, "Referee", "referee")
        await log.append(
            session,
            campaign,
            "campaign_created",
            {"name": name, "system": system, "options": setup},
            "Referee",
        )
        for side in clean:
            await log.append(session, campaign, "side_added", {"side": side}, "Referee")
    return Made(campaign, referee)


async def _open(
    session: AsyncSession, campaign_id: str, seat: CampaignSeat
) -> tuple[Campaign, dict[str, Any]]:
    """The campaign locked for a change by its referee, and the state its log leaves."""
    referee_only(seat)
    campaign = await log.get_campaign(session, campaign_id, lock=True)
    return campaign, await log.folded(session, campaign_id)


async def add_side(platform: Platform, campaign_id: str, seat: CampaignSeat, side: str) -> int:
    side = _name(side, "side", 40)
    async with platform.db.transaction() as session:
        campaign, state = await _open(session, campaign_id, seat)
        if side in state["sides"]:
            raise Invalid(f"side: the campaign already has a side {side!r}", "side")
        if len(state["sides"]) >= MAX_SIDES:
            raise Invalid(f"side: a campaign has at most {MAX_SIDES} sides", "side")
        return (await log.append(session, campaign, "side_added", {"side": side}, seat.name)).seq


async def add_player(
    platform: Platform, campaign_id: str, seat: CampaignSeat, name: str, side: str
) -> log.SeatMade:
    """A player's seat by name on a side (its token shown once)."""
    name = _name(name, "name")
    async with platform.db.transaction() as session:
        campaign, state = await _open(session, campaign_id, seat)
        if side not in state["sides"]:
            raise Invalid(
                f"side: one of the campaign's sides ({', '.join(state['sides']) or 'none yet'})", "side"
            )
        if len(state["players"]) >= MAX_PLAYERS:
            raise Invalid(f"name: a campaign has at most {MAX_PLAYERS} players", "name")
        made = await log.add_seat(session, campaign.id, name, "player", side)
        await log.append(
            session, campaign, "player_added", {"seat": made.seat.id, "name": name, "side": side}, seat.name
        )
        return made


async def add_ship(
    platform: Platform,
    campaign_id: str,
    seat: CampaignSeat,
    *,
    side: str,
    player: str | None = None,
    library: str | None = None,
    definition: dict[str, Any] | None = None,
    points: int | None = None,
    name: str | None = None,
) -> str:
    """A ship joins a side's fleet, from the ship library or a definition as JSON, with its point
    value (given, or its definition's `points` where it has one)."""
    if (library is None) == (definition is None):
        raise Invalid("library: name a library ship, or send a definition (one of the two)", "library")
    if points is not None and not 0 <= points <= 100000:
        raise Invalid("points: a whole number from 0 to 100000", "points")
    async with platform.db.transaction() as session:
        campaign, state = await _open(session, campaign_id, seat)
        system = platform.rules.systems[campaign.system]
        if side not in state["sides"]:
            raise Invalid(
                f"side: one of the campaign's sides ({', '.join(state['sides']) or 'none yet'})", "side"
            )
        if player is not None and (state["players"].get(player) or {}).get("side") != side:
            raise Invalid("player: a player seat of that side (or none)", "player")
        if len(state["ships"]) >= MAX_SHIPS:
            raise Invalid(f"library: a campaign holds at most {MAX_SHIPS} ships", "library")
        if library is not None:
            found = await library_chosen(session, system, [library])
            if library not in found:
                raise Invalid(f"library: no ship {library!r} of the {system.name} library", "library")
            raw: dict[str, Any] = found[library]
            field = "library"
        else:
            raw, field = dict(definition or {}), "definition"
        given_points = raw.get("points") if isinstance(raw.get("points"), int) else None
        raw = {k: v for k, v in raw.items() if k != "points"}
        if name:
            raw["name"] = _name(name, "name")
        clean = clean_definition(platform.rules, raw, field)
        if clean["system"] not in system.fleets:
            raise Invalid(
                f"{field}.system: a {system.name} campaign takes ships written for "
                f"{' or '.join(sorted(system.fleets))}",
                f"{field}.system",
            )
        clean["side"] = side
        ship_id = f"s{len(state['ships']) + 1}"
        data = {
            "ship": ship_id,
            "side": side,
            "player": player,
            "points": points if points is not None else given_points,
            "definition": clean,
        }
        await log.append(session, campaign, "ship_added", data, seat.name)
        return ship_id


def _fleet_ship(state: dict[str, Any], ship_id: str, field: str = "ship") -> dict[str, Any]:
    ship = state["ships"].get(ship_id)
    if ship is None:
        raise Invalid(f"{field}: no ship {ship_id!r} in the campaign's fleets", field)
    return ship


def _between_battles(ship: dict[str, Any], field: str = "ship") -> None:
    if ship["status"] != READY:
        words = {IN_BATTLE: "is in a battle", DESTROYED: "was destroyed", "retired": "is retired"}
        raise Invalid(f"{field}: {ship['name']} {words.get(ship['status'], ship['status'])}", field)


async def retire(platform: Platform, campaign_id: str, seat: CampaignSeat, ship_id: str, reason: str) -> int:
    """A ship leaves its fleet for good (a destroyed one is struck off the same way)."""
    reason = _name(reason, "reason", 300)
    async with platform.db.transaction() as session:
        campaign, state = await _open(session, campaign_id, seat)
        ship = _fleet_ship(state, ship_id)
        if ship["status"] in (IN_BATTLE, "retired"):
            _between_battles(ship)
        data = {"ship": ship_id, "reason": reason}
        return (await log.append(session, campaign, "ship_retired", data, seat.name)).seq


def _dice(values: list[int] | None, campaign_id: str, seq: int) -> DiceSource:
    if values is not None:
        return EnteredDice(values)
    return SeededDice(secrets.token_bytes(32), campaign_id, seq)


async def repair(
    platform: Platform,
    campaign_id: str,
    seat: CampaignSeat,
    ship_id: str,
    part: str,
    section: str,
    system: str,
    dice: list[int] | None = None,
) -> dict[str, Any]:
    """A repair between battles by the part's own rules (`PartSpec.mend`: High Guard's TR-22
    attempt); a part without such rules is mended by a referee's ruling instead."""
    async with platform.db.transaction() as session:
        campaign, state = await _open(session, campaign_id, seat)
        ship = _fleet_ship(state, ship_id)
        _between_battles(ship)
        spec = platform.rules.game(campaign.system).parts.get(part)
        if part not in ship["parts"] or spec is None:
            raise Invalid(f"part: {ship['name']} has no part {part!r}", "part")
        if spec.mend is None:
            raise Invalid(f"part: the {part} part has no repair rules; make a referee's ruling", "part")
        source = _dice(dice, campaign.id, campaign.seq + 1)
        try:
            after, text, rolls = spec.mend(copy.deepcopy(ship["parts"][part]), section, system, source)
        except NeedRoll as exc:
            raise Invalid(f"dice: enter the dice for {exc.purpose}", "dice") from None
        except RuleError as exc:
            raise Invalid(f"{exc.field or 'system'}: {exc.message}", exc.field or "system") from None
        parts = {**copy.deepcopy(ship["parts"]), part: after}
        data = {
            "ship": ship_id,
            "part": part,
            "parts": parts,
            "text": f"{ship['name']} {text}.",
            "rolls": [r.model_dump(mode="json") for r in rolls],
        }
        event = await log.append(session, campaign, "repaired", data, seat.name)
        return {"seq": event.seq, "text": data["text"], "rolls": data["rolls"]}


def _set(target: dict[str, Any], path: str, value: Any, field: str) -> None:
    """Set the value at a dotted place in the parts ("sheet.sections.0.structure"); a place that
    is not there is refused naming it."""
    keys = path.split(".")
    here: Any = target
    for i, key in enumerate(keys):
        last = i == len(keys) - 1
        if isinstance(here, list) and key.isdigit() and int(key) < len(here):
            if last:
                here[int(key)] = value
                return
            here = here[int(key)]
        elif isinstance(here, dict) and key in here:
            if last:
                here[key] = value
                return
            here = here[key]
        else:
            break
    raise Invalid(f"{field}: no value at {path!r}", field)


async def ruling(
    platform: Platform,
    campaign_id: str,
    seat: CampaignSeat,
    ship_id: str,
    reason: str,
    values: dict[str, Any] | None = None,
    restore: bool = False,
) -> int:
    """The referee's ruling between battles, with its reason: values set by their place in the
    ship's parts ("sheet.sections.0.structure"), or the ship restored as its definition had it (a
    refit). The parts' own schemas check what is set."""
    reason = _name(reason, "reason", 300)
    if not restore and not values:
        raise Invalid("values: the values to set, or restore: true", "values")
    async with platform.db.transaction() as session:
        campaign, state = await _open(session, campaign_id, seat)
        ship = _fleet_ship(state, ship_id)
        _between_battles(ship)
        parts = copy.deepcopy(ship["definition"]["parts"] if restore else ship["parts"])
        for path, value in (values or {}).items():
            _set(parts, path, value, f"values.{path}")
        try:
            game = platform.rules.game(campaign.system)
            for name, data in parts.items():
                try:
                    game.validate_parts({name: data})
                except ValidationError as exc:
                    where, text = first_error(exc, f"values.{name}")
                    raise Invalid(text, where) from None
        except RuleError as exc:
            raise Invalid(exc.message, exc.field or "values") from None
        what = "restored as built" if restore else ", ".join(f"{k} → {v}" for k, v in (values or {}).items())
        data = {
            "ship": ship_id,
            "parts": parts,
            "reason": reason,
            "text": f"{ship['name']}: {what} (referee's ruling: {reason}).",
        }
        return (await log.append(session, campaign, "ruling", data, seat.name)).seq


async def rewind(platform: Platform, campaign_id: str, seat: CampaignSeat, to: int) -> int:
    """The campaign put back as it stood after seq `to` (an event itself: nothing is deleted). A
    battle started since keeps its own log; the campaign no longer counts it."""
    async with platform.db.transaction() as session:
        campaign, state = await _open(session, campaign_id, seat)
        if not 1 <= to < campaign.seq:
            raise Invalid(f"to: a seq from 1 to {campaign.seq - 1}", "to")
        return (await log.append(session, campaign, "rewound", {"to": to}, seat.name)).seq


@dataclass(frozen=True)
class Started:
    battle: Battle
    referee: Seat
    seats: list[Seat]
    ships: dict[str, str]  # fleet ship id → battle ship id


async def start_battle(
    platform: Platform,
    campaign_id: str,
    seat: CampaignSeat,
    name: str,
    ships: list[str],
    options: dict[str, Any] | None = None,
) -> Started:
    """A battle from the campaign's fleets: the ships picked, each as its fleet keeps it now,
    commanded by its player's new seat; the battle and the campaign's record of it commit
    together (the wizard's creation service, one transaction)."""
    name = _name(name, "name", 120)
    if not ships:
        raise Invalid("ships: pick at least one ship from the fleets", "ships")
    if len(set(ships)) != len(ships):
        raise Invalid("ships: each ship once", "ships")
    async with platform.db.reader() as session:
        referee_only(seat)
        campaign = await log.get_campaign(session, campaign_id)
        state = await log.folded(session, campaign_id)
    picked = []
    for i, ship_id in enumerate(ships):
        ship = _fleet_ship(state, ship_id, f"ships.{i}")
        _between_battles(ship, f"ships.{i}")
        picked.append(ship)
    players = list(dict.fromkeys(s["player"] for s in picked if s["player"]))
    seat_index = {p: i for i, p in enumerate(players)}
    wanted_seats = [SeatWanted(state["players"][p]["name"], "player", "ships") for p in players]
    wanted_ships = [
        ShipWanted(
            {**s["definition"], "parts": copy.deepcopy(s["parts"]), "side": s["side"]},
            seat_index.get(s["player"]) if s["player"] else None,
            f"ships.{i}",
            s["name"],
        )
        for i, s in enumerate(picked)
    ]
    mapping: dict[str, str] = {}

    async def then(session: AsyncSession, battle: Battle, made: BattleState) -> None:
        locked = await log.get_campaign(session, campaign_id, lock=True)
        if locked.seq != campaign.seq:  # the campaign changed since it was read: nothing is made
            raise Invalid("ships: the campaign changed meanwhile; pick again", "ships")
        mapping.update(zip(ships, list(made.ships), strict=True))
        data = {"battle": battle.id, "name": battle.name, "ships": dict(mapping)}
        await log.append(session, locked, "battle_started", data, seat.name, battle_id=battle.id)

    battle, referee, made = await create_prepared(
        platform,
        name=name,
        system=campaign.system,
        dice_mode="seeded",
        seats=wanted_seats,
        ships=wanted_ships,
        options=options or {},
        then=then,
    )
    return Started(battle, referee, made, mapping)


async def walked_battle(
    session: AsyncSession, rules: Any, battle: Battle
) -> tuple[record.Result, dict[int, list[dict[str, Any]]]]:
    """The battle's log walked from its start (the state at its end, the damage and kills), and its
    events by seq: what a recorded result is made from, and checked against by the audit."""
    raw = await log_rows(session, battle.id)
    rows = [LogRow(r.seq, r.action_type, r.actor_id, r.actor_role, r.payload, r.dice) for r in raw]
    events = {r.seq: list(r.events) for r in raw}
    return record.walk(rules, battle, rows, events), events


def recorded_result(
    state: dict[str, Any],
    battle: Battle,
    ships: dict[str, str],
    walked: record.Result,
    events: dict[int, list[dict[str, Any]]],
) -> dict[str, Any]:
    """The `battle_recorded` entry's data for a battle whose fleet ships are `ships` (fleet id →
    the ship's id in the battle), from the campaign as it stood (`state`) and the walked battle."""
    end = walked.state
    result: dict[str, Any] = {}
    for fleet_id, bid in ships.items():
        ship = state["ships"][fleet_id]
        result[fleet_id] = {
            "battle_ship": bid,
            "parts": carry.carried_parts(end, bid, ship["parts"], state["options"]),
            "destroyed": carry.destroyed(end, bid),
            "taken": walked.taken.get(bid, 0),
            "dealt": walked.dealt.get(bid, 0),
            "kills": walked.kills.get(bid, []),
        }
    ending = next((e for evs in events.values() for e in evs if e.get("kind") == "battle_end"), None)
    won = winner(ending, {sid: {"side": s.side} for sid, s in end.ships.items()}) if ending else None
    return {"battle": battle.id, "winner": won, "ships": result}


async def record_battle(platform: Platform, battle_id: str) -> int | None:
    """The end of a battle started from a campaign, written back to its fleets as one event: each
    ship's parts as its parts' declarations carry them, whether it was destroyed, the damage it
    took and dealt and the ships it destroyed. Once only; None when there is nothing to record."""
    async with platform.db.reader() as session:
        started = (
            (
                await session.execute(
                    select(CampaignEvent).where(
                        CampaignEvent.battle_id == battle_id, CampaignEvent.kind == "battle_started"
                    )
                )
            )
            .scalars()
            .first()
        )
        if started is None:
            return None
        battle = await session.get(Battle, battle_id)
        if battle is None or battle.status != "finished":
            return None
        walked, events = await walked_battle(session, platform.rules, battle)
    return await _write_record(platform, started.campaign_id, battle, walked, events)


async def _write_record(
    platform: Platform,
    campaign_id: str,
    battle: Battle,
    walked: record.Result,
    events: dict[int, list[dict[str, Any]]],
) -> int | None:
    async with platform.db.transaction() as session:
        campaign = await log.get_campaign(session, campaign_id, lock=True)
        state = await log.folded(session, campaign_id)
        entry = state["battles"].get(battle.id)
        if entry is None or entry["status"] != "running":
            return None
        data = recorded_result(state, battle, entry["ships"], walked, events)
        return (
            await log.append(session, campaign, "battle_recorded", data, "the rules", battle_id=battle.id)
        ).seq


def on_committed(platform: Platform, event: ActionCommitted) -> Any:
    """After-commit: the action that ended a battle (its state now finished) brings the battle's
    result home to the campaign it was started from, as a background task of the bus."""
    if not event.commit.state.finished:
        return None
    return record_battle(platform, event.commit.battle_id)
