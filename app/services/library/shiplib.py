"""The ship library people can grow: the sample ships shipped as files (read-only,
`library.py`) and the definitions referees save into the `ship_library` table — from JSON, or from
a ship in a battle as built (its definition as added) or as it is now (damage kept). Every
definition is checked the way `ship.add` checks one (`ShipDefinition`, then `build_ship` in a
battle of a system that takes its fleet), so whatever the library holds can be added to a battle;
SHIP_SCHEMA_ID's JSON Schema (GET /api/v1/ships/schema) describes the same shape. Who may do what
is in docs/ship-library.md: any active referee seat saves; only the referees of the battle an entry
was saved in delete it; everyone reads, except an entry held back while its battle is under way."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ValidationError
from pydantic.json_schema import models_json_schema
from sqlalchemy import false, func, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import defer

from app.models import Battle, LibraryShip, Participant
from app.rules import Rules
from app.rules.core import RuleError
from app.rules.generic.actions import ShipDefinition, build_ship
from app.rules.generic.actions import slug as slug_of
from app.rules.messages import first_error
from app.rules.state import BattleState, Ship
from app.rules.system import GameSystem
from app.services.errors import Forbidden, Invalid, NotFound
from app.services.history.battlefile import SHIP_ADD
from app.services.history.replay import log_rows, stacks
from app.services.library.samples import library as samples
from app.services.platform import Platform
from app.services.store.battles import load_state
from app.services.store.seats import aware

SHIP_SCHEMA_ID = "starboard.ship/1"
RESERVED = {"schema"}  # GET /api/v1/ships/schema: no ship may be called that


# --- the definition: checked as ship.add checks it, and its JSON Schema -------------------------------


def families(rules: Rules, system: GameSystem | None = None) -> list[str]:
    """The ship families (a definition's `system`) a battle of `system` takes; every family any
    system takes without one."""
    if system is not None:
        return sorted(system.fleets)
    return sorted({f for s in rules.systems.values() for f in s.fleets})


def system_of(rules: Rules, key: str, field: str = "system") -> GameSystem:
    if key not in rules.systems:
        raise Invalid(f"{field}: the game system must be one of {', '.join(rules.systems)}", field)
    return rules.systems[key]


def clean_definition(rules: Rules, data: Any, field: str = "definition") -> dict[str, Any]:
    """The definition as `ship.add` would take it, its parts as the rules store them (so saving an
    export again gives the same definition); refused naming the field, as ship.add names it."""
    try:
        definition = ShipDefinition.model_validate(data)
    except ValidationError as exc:
        where, text = first_error(exc, field)
        raise Invalid(text, where) from None
    host = next((s for s in rules.systems.values() if definition.system in s.fleets), None)
    if host is None:
        takes = " or ".join(f"“{f}”" for f in families(rules))
        raise Invalid(
            f"{field}.system: no game system here takes ships written for “{definition.system}”; "
            f"a ship is written for {takes}",
            f"{field}.system",
        )
    try:
        ship = build_ship(rules.new_battle(host.key), definition, None)
    except RuleError as exc:  # a part's own check; an unknown part is named without the prefix
        where = exc.field or field
        if not where.startswith(field):
            where = f"{field}.{where}"
        text = exc.message if exc.message.startswith(where) else f"{where}: {exc.message}"
        raise Invalid(text, where) from None
    return definition_of(ship)


def public_definition(state: BattleState, ship: Ship) -> dict[str, Any]:
    """A ship as it is now, as the saving referee's table shows it to the public after the end,
    through the same per-viewer redaction as every door (`public_ship`): of each part, the values
    the public sees as they are; a value the public does not see (a cloak's referee-set signature,
    its detection attempts with their suggestions, spent thrust) goes back to the part's default,
    and a part the public does not see at all is left out."""
    shown = state.game.public_ship(ship)["parts"]
    parts: dict[str, Any] = {}
    for name, value in ship.parts.items():
        seen = shown.get(name)
        if seen == value:
            parts[name] = value
        elif isinstance(value, dict) and isinstance(seen, dict):
            parts[name] = {k: v for k, v in value.items() if k in seen and seen[k] == v}
    return {**definition_of(ship), "parts": parts}


def definition_of(ship: Ship) -> dict[str, Any]:
    """A ship as a definition: what makes the ship, not what the battle did with it (its commander,
    position, destroyed and crippled marks stay with the battle)."""
    return {
        "name": ship.name,
        "klass": ship.klass,
        "system": ship.system,
        "side": ship.side,
        "parts": ship.parts,
    }


def ship_schema(rules: Rules, system: GameSystem | None = None) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a ship definition, from the models `ship.add` validates:
    ShipDefinition's fields, `system` limited to the families this game system takes, and each
    part any ruleset knows (a ship may carry any of them; unknown parts are refused)."""
    parts = sorted(rules.game(next(iter(rules.systems))).parts.items())
    refs, defs = models_json_schema(
        [(spec.schema, "validation") for _, spec in parts], ref_template="#/$defs/{model}"
    )
    base = ShipDefinition.model_json_schema()
    properties = dict(base["properties"])
    properties["system"] = {
        "enum": families(rules, system),
        "description": "the ship's rule family; a battle takes the families its game system lists",
    }
    properties["sample"] = {
        "type": "boolean",
        "default": False,
        "description": "true only in the sample files shipped with Starboard",
    }
    properties["parts"] = {
        "type": "object",
        "description": "the ship's parts by name; each ruleset's part has its own shape",
        "properties": {name: refs[(spec.schema, "validation")] for name, spec in parts},
        "additionalProperties": False,
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SHIP_SCHEMA_ID + (f"/{system.key}" if system is not None else ""),
        "title": "A Starboard ship definition"
        + (f" for a {system.name} battle" if system is not None else ""),
        "type": "object",
        "required": base.get("required", ["name", "system"]),
        "properties": properties,
        "$defs": defs.get("$defs", {}),
    }


# --- entries ------------------------------------------------------------------------------------------


class Entry(BaseModel):
    """One library ship as lists show it (its definition comes with GET /api/v1/ships/{slug})."""

    slug: str
    name: str
    klass: str
    system: str
    sample: bool
    source: str  # sample | json | built | now
    saved_by: str | None
    saved_at: datetime | None
    from_ship: str | None = None
    held: bool = False  # shown only to the referees of the battle it came from until that battle ends
    may_delete: bool = False  # for the viewer asking


def _sample_entry(slug: str, data: dict[str, Any]) -> Entry:
    return Entry(
        slug=slug,
        name=data["name"],
        klass=data.get("klass", ""),
        system=data["system"],
        sample=True,
        source="sample",
        saved_by=None,
        saved_at=None,
    )


def _entry(
    row: LibraryShip,
    viewer: Participant | None,
    held: bool = False,
    klass: str | None = None,
    also: Sequence[Participant] = (),
) -> Entry:
    return Entry(
        slug=row.slug,
        name=row.name,
        klass=str(row.definition.get("klass", "")) if klass is None else klass,
        system=row.system,
        sample=False,
        source=row.source,
        saved_by=row.saved_by_name,
        saved_at=aware(row.created_at),
        from_ship=row.from_ship,
        held=held,
        may_delete=may_delete(row, viewer, also),
    )


def may_delete(row: LibraryShip, viewer: Participant | None, also: Sequence[Participant] = ()) -> bool:
    """A saved ship is renamed or deleted by a referee of the battle it was saved in, nobody else:
    the seat asking, or another seat the same browser holds (`also`: a referee who saved it in one
    battle keeps it from the library of the next)."""
    return any(
        seat is not None and seat.active and seat.role == "referee" and seat.battle_id == row.saved_in
        for seat in (viewer, *also)
    )


def _shown(row: LibraryShip, status: str | None, viewer: Participant | None) -> tuple[bool, bool]:
    """(whether this viewer sees the entry, whether it is still held). A hold ends with its battle
    (or when that battle is gone); until then only that battle's referees see the entry."""
    held = row.held_for is not None and status is not None and status != "finished"
    referee_there = viewer is not None and viewer.role == "referee" and viewer.battle_id == row.held_for
    return (not held or referee_there), held


def _with_hold(query: Any) -> Any:
    return query.add_columns(Battle.status).outerjoin(Battle, Battle.id == LibraryShip.held_for)


def _klass() -> Any:
    """A saved ship's class, read inside the query: a list needs it, not the whole definition."""
    return LibraryShip.definition["klass"].as_string()


async def library_entries(
    session: AsyncSession,
    rules: Rules,
    system: GameSystem | None = None,
    viewer: Participant | None = None,
    also: Sequence[Participant] = (),
) -> list[Entry]:
    """Samples then saved ships (oldest first), of the families a `system` battle takes (all of them
    without one), as `viewer` may see them; which it may rename or delete counts `also` (the other
    seats its browser holds). No definition is read (names, classes and marks only), so a list costs
    little however large the definitions are; SHIPLIB_MAX_TOTAL bounds its length."""
    wanted = set(families(rules, system))
    out = [_sample_entry(slug, d) for slug, d in samples().items() if d.get("system") in wanted]
    query = (
        _with_hold(select(LibraryShip).options(defer(LibraryShip.definition)))
        .add_columns(_klass())
        .where(LibraryShip.system.in_(sorted(wanted)))
        .order_by(LibraryShip.created_at, LibraryShip.slug)
    )
    for row, status, klass in (await session.execute(query)).all():
        seen, held = _shown(row, status, viewer)
        if seen:
            out.append(_entry(row, viewer, held, klass or "", also))
    return out


HOME_NEWEST = 40  # the saved ships the home page's create form lists by name (the newest)


def _anyone_sees() -> Any:
    """What `_shown` lets a viewer with no seat see, said in SQL: not held, or its battle ended or gone."""
    return or_(LibraryShip.held_for.is_(None), Battle.status.is_(None), Battle.status == "finished")


async def library_picks(
    session: AsyncSession, rules: Rules, newest: int = HOME_NEWEST
) -> dict[str, dict[str, dict[str, Any]]]:
    """For the home page's create form: system key → slug → {name, klass} of the samples, then
    of the `newest` saved ships anyone may see (oldest of them first). Names and classes only —
    no definition is read — so the page costs the same with 40 saved ships or 5,000."""
    query = (
        select(LibraryShip.slug, LibraryShip.name, LibraryShip.system, _klass())
        .outerjoin(Battle, Battle.id == LibraryShip.held_for)
        .where(_anyone_sees())
        .order_by(LibraryShip.created_at.desc(), LibraryShip.slug.desc())
        .limit(newest)
    )
    saved = list(reversed((await session.execute(query)).all()))
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for key, system in rules.systems.items():
        picks = {
            slug: {"name": d["name"], "klass": d.get("klass", ""), "sample": True}
            for slug, d in samples().items()
            if d.get("system") in system.fleets
        }
        for slug, name, family, kind in saved:
            if family in system.fleets:
                picks[slug] = {"name": name, "klass": kind or "", "sample": False}
        out[key] = picks
    return out


async def library_chosen(
    session: AsyncSession, system: GameSystem, slugs: list[str]
) -> dict[str, dict[str, Any]]:
    """slug → definition of just the ships a create form picked, of the families a `system`
    battle takes, that anyone may see (samples first); a slug not found is left out."""
    wanted = list(dict.fromkeys(slugs))
    out = {
        s: dict(samples()[s])
        for s in wanted
        if s in samples() and samples()[s].get("system") in system.fleets
    }
    rest = [s for s in wanted if s not in out]
    if rest:
        query = (
            select(LibraryShip.slug, LibraryShip.definition)
            .outerjoin(Battle, Battle.id == LibraryShip.held_for)
            .where(LibraryShip.slug.in_(rest), LibraryShip.system.in_(sorted(system.fleets)), _anyone_sees())
        )
        for slug, definition in (await session.execute(query)).all():
            out[slug] = {**definition, "sample": False}
    return out


async def _row(
    session: AsyncSession, slug: str, viewer: Participant | None
) -> tuple[LibraryShip, bool] | None:
    """The saved ship under `slug` if this viewer may see it (a held one is not there for others)."""
    found = (await session.execute(_with_hold(select(LibraryShip)).where(LibraryShip.slug == slug))).first()
    if found is None:
        return None
    row, status = found
    seen, held = _shown(row, status, viewer)
    return (row, held) if seen else None


async def library_definition(
    session: AsyncSession, slug: str, viewer: Participant | None = None, field: str = "library"
) -> dict[str, Any]:
    """The definition of a sample or a saved ship this viewer may see, to add with `ship.add`."""
    if slug in samples():
        return dict(samples()[slug])
    found = await _row(session, slug, viewer)
    if found is None:
        raise NotFound(f"{field}: no ship {slug!r} in the library", field)
    return dict(found[0].definition)


# --- saving and deleting --------------------------------------------------------------------------------


def _referee(saver: Participant) -> None:
    if saver.role != "referee" or not saver.active:
        raise Forbidden("only a battle's referee may save, rename or delete ships in the library")


async def _free_slug(session: AsyncSession, name: str) -> str:
    base = slug_of(name)
    taken = set(samples()) | RESERVED
    rows = await session.scalars(
        select(LibraryShip.slug).where((LibraryShip.slug == base) | LibraryShip.slug.like(f"{base}-%"))
    )
    taken |= set(rows)
    slug, n = base, 2
    while slug in taken:
        slug, n = f"{base}-{n}", n + 1
    return slug


LIBRARY_LOCK = 0x5EB0A4D  # the advisory lock PostgreSQL saves take turns on (any fixed number)


async def _take_turns(session: AsyncSession) -> None:
    """Saves take turns from here to their commit, so a count read here still holds at the insert
    (two saves at once cannot both take the last place): on PostgreSQL an advisory lock held until
    the transaction ends; on SQLite a write that matches nothing, which takes the database's one
    write lock before the counts are read."""
    connection = await session.connection()
    if connection.dialect.name == "postgresql":
        await session.execute(select(func.pg_advisory_xact_lock(LIBRARY_LOCK)))
    else:
        await session.execute(update(LibraryShip).where(false()).values(slug=LibraryShip.slug))


async def _within_bounds(session: AsyncSession, platform: Platform, saver: Participant) -> None:
    """SHIPLIB_MAX_PER_OWNER saved ships per referee seat and SHIPLIB_MAX_TOTAL in all: one seat
    cannot fill the library (and every list of it) for everyone."""
    await _take_turns(session)
    settings = platform.settings
    mine = await session.scalar(
        select(func.count()).select_from(LibraryShip).where(LibraryShip.saved_by == saver.id)
    )
    if (mine or 0) >= settings.shiplib_max_per_owner:
        raise Invalid(
            f"library: this referee seat has saved {mine} ships, the most one seat may keep "
            f"({settings.shiplib_max_per_owner}); delete one of them first",
            "library",
        )
    total = await session.scalar(select(func.count()).select_from(LibraryShip))
    if (total or 0) >= settings.shiplib_max_total:
        raise Invalid(
            f"library: the library is full ({settings.shiplib_max_total} saved ships); "
            "ask the referees to delete ships they no longer need",
            "library",
        )


async def save(
    platform: Platform,
    saver: Participant,
    definition: Any,
    source: str = "json",
    from_ship: str | None = None,
    held_for: str | None = None,
    field: str = "definition",
) -> Entry:
    """Check a definition as ship.add would and keep it under a new slug made from its name (the
    next free `name-2`, `name-3`… when taken)."""
    _referee(saver)
    clean = clean_definition(platform.rules, definition, field)
    for _ in range(6):  # referees saving the same name at once: a loser takes the next free slug
        try:
            async with platform.db.transaction() as session:
                await _within_bounds(session, platform, saver)
                row = LibraryShip(
                    slug=await _free_slug(session, clean["name"]),
                    name=clean["name"],
                    system=clean["system"],
                    definition=clean,
                    source=source,
                    saved_in=saver.battle_id,
                    saved_by=saver.id,
                    saved_by_name=saver.name,
                    from_ship=from_ship,
                    held_for=held_for,
                )
                session.add(row)
            return _entry(row, saver, held_for is not None)
        except IntegrityError:
            continue
    raise Invalid("the library is busy saving ships of that name; try again", field)


async def _as_built(session: AsyncSession, battle_id: str, ship_id: str) -> dict[str, Any]:
    """The definition the ship in effect was added with (the last ship.add in effect that made it)."""
    rows = await log_rows(session, battle_id)
    effect = set(stacks(rows).in_effect)
    for row in reversed(rows):
        made = any(e.get("kind") == "ship_added" and e.get("ship") == ship_id for e in row.events)
        if row.action_type == SHIP_ADD and row.seq in effect and made:
            return dict(row.payload.get("definition") or {})
    raise Invalid(
        f"state: {ship_id!r} has no definition as built in this battle's log; save it as it is now", "state"
    )


def _public_as_built(state: BattleState, definition: dict[str, Any]) -> dict[str, Any]:
    """The definition as added, through the same public redaction as a save as it is now (a
    definition may set what only the referee reads, such as a cloak's signature). One today's rules
    no longer build is handed on as it is, for `save` to refuse naming the field."""
    try:
        ship = build_ship(state, ShipDefinition.model_validate(definition), None)
    except (ValidationError, RuleError):
        return definition
    return public_definition(state, ship)


async def save_from_battle(
    platform: Platform, saver: Participant, ship_id: str, state: str = "now", name: str | None = None
) -> Entry:
    """A ship of the saver's battle into the library: `now` keeps its parts as they are (damage,
    spent power, pain…), `built` its definition as it was added. Never kept: owner, position,
    destroyed and crippled marks (a battle's, not a ship's). A save from a battle under way, now or
    as built, is held for that battle's referees until it ends: a ship's parts may hold what its
    opponents may not see (power, orders, shield strength), and so may a definition pasted as JSON."""
    _referee(saver)
    if state not in ("now", "built"):
        raise Invalid("state: must be “now” (as it is now, damage kept) or “built” (as added)", "state")
    async with platform.db.reader() as session:
        battle = await session.get(Battle, saver.battle_id)
        current, _ = await load_state(session, saver.battle_id, platform.rules)
        if ship_id not in current.ships:
            raise NotFound(f"ship: no ship {ship_id!r} in this battle", "ship")
        ship = current.ships[ship_id]
        if state == "built":
            definition = _public_as_built(current, await _as_built(session, saver.battle_id, ship_id))
        else:
            definition = public_definition(current, ship)
    if name is not None and name.strip():
        definition["name"] = name.strip()
    held = saver.battle_id if battle is not None and battle.status != "finished" else None
    return await save(platform, saver, definition, state, ship_id, held, field="definition")


async def _kept_row(
    session: AsyncSession, viewer: Participant, slug: str, also: Sequence[Participant], doing: str
) -> tuple[LibraryShip, bool]:
    """The saved ship `viewer` (or a seat in `also`) may rename or delete; samples are read-only."""
    _referee(viewer)
    if slug in samples():
        raise Forbidden(f"slug: {slug!r} is a sample ship; the samples are read-only", "slug")
    found = await _row(session, slug, viewer)
    if found is None:
        raise NotFound(f"slug: no ship {slug!r} in the library", "slug")
    row, held = found
    if not may_delete(row, viewer, also):
        raise Forbidden(
            f"slug: {row.name} was saved by the referee of another battle; only that battle's "
            f"referees may {doing} it",
            "slug",
        )
    return row, held


async def delete(
    platform: Platform, viewer: Participant, slug: str, also: Sequence[Participant] = ()
) -> Entry:
    """Delete a saved ship (a referee of the battle it was saved in); samples are read-only."""
    async with platform.db.transaction() as session:
        row, held = await _kept_row(session, viewer, slug, also, "delete")
        entry = _entry(row, viewer, held, also=also)
        await session.delete(row)
    return entry


NAME_MAX = 80


async def rename(
    platform: Platform, viewer: Participant, slug: str, name: str, also: Sequence[Participant] = ()
) -> Entry:
    """Give a saved ship a new name — in the list and in its definition, so a battle it is added to
    next names it so; its slug (its address) stays. Battles it was added to keep their copy."""
    name = " ".join(str(name).split())
    if not 1 <= len(name) <= NAME_MAX:
        raise Invalid(f"name: a ship's name has 1 to {NAME_MAX} characters (you sent {len(name)})", "name")
    if any(unicodedata.category(c) in ("Cc", "Cs") for c in name):
        raise Invalid("name: a ship's name may not hold control characters", "name")
    async with platform.db.transaction() as session:
        row, held = await _kept_row(session, viewer, slug, also, "rename")
        row.name = name
        row.definition = {**row.definition, "name": name}
        entry = _entry(row, viewer, held, also=also)
    return entry


async def export(session: AsyncSession, slug: str, viewer: Participant | None = None) -> dict[str, Any]:
    """The definition to download: the file GET /api/v1/ships/schema describes, which `ship.add` and
    POST /api/v1/ships take as it is."""
    if slug in samples():
        return dict(samples()[slug])
    return await library_definition(session, slug, viewer, field="slug")
