"""Command line: `python -m app.cli serve` migrates, loads the demo once, prints the links and serves.

- `python -m app.cli migrate`: alembic upgrade head on DATABASE_URL
- `python -m app.cli demo`: create the demo battles (again) and print their links
- `python -m app.cli serve [--host 127.0.0.1] [--port 8000] [--workers 1] [--no-demo] [--no-migrate]`
- `python -m app.cli export BATTLE > file.json`: the battle as a file (docs/battle-file.md)
- `python -m app.cli import file.json`: a new battle from a file, replayed and checked; prints its
  id and each seat's join link (tokens are shown once)
- `python -m app.cli campaign-export CAMPAIGN > file.json` / `campaign-import file.json`: a campaign
  as one file with its battles inside, any size (docs/campaigns.md); the import prints the new
  campaign's id and its seats' tokens as JSON
- `python -m app.cli backup [FILE]` / `restore FILE [--into URL] [--clean]`: a consistent copy of
  the database and its way back (docs/operations.md, "Backups")
- `python -m app.cli archive --older-than-days N --to DIR [--remove]`: finished battles untouched
  for N days written as battle files, and removed from the database with --remove
- `python -m app.cli verify file.json`: every die of an ended seeded battle's file recomputed from
  its revealed seed; names each that does not match (exit 1), needs no server or database

`serve` runs uvicorn with the limits from the configuration: TIMEOUT_KEEP_ALIVE, HEADER_TIMEOUT (a
deadline for each request's headers, see app/web/middleware/serving.py), MAX_HEADER_BYTES, the websocket
frame limit, and --proxy-headers trusting FORWARDED_ALLOW_IPS. PUBLIC_BASE_URL defaults to the
address served.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from app.config import ROOT, get_settings

if TYPE_CHECKING:  # the platform is imported only by the commands that open one
    from app.services.platform import Platform

Done = TypeVar("Done")


def migrate() -> None:
    subprocess.run([sys.executable, "-m", "alembic", "upgrade", "head"], cwd=ROOT, check=True)


def demo(base_url: str, *, fresh: bool) -> list[dict]:
    from app.demo import create_demos, save_links, saved_links

    links = None if fresh else saved_links()
    if links is None:
        links = asyncio.run(_with_platform(lambda platform: create_demos(platform, base_url)))
        save_links(links)
    return links


async def _with_platform(work: Callable[[Platform], Awaitable[Done]]) -> Done:
    from app.db import Database
    from app.realtime.broker import Broker
    from app.services.bootstrap import build_platform

    settings = get_settings()
    platform = build_platform(settings=settings, db=Database.from_settings(settings), broker=Broker())
    try:
        return await work(platform)
    finally:
        await platform.db.dispose()


async def _export(platform: Platform, battle_id: str) -> dict:
    from app.services.history.battlefile import export_battle
    from app.services.store.battles import get_battle

    async with platform.db.reader() as session:
        return await export_battle(session, await get_battle(session, battle_id))


async def _import(platform: Platform, data: dict) -> tuple[str, list[dict]]:
    from app.services.history.battlefile import import_into

    battle, seats = await import_into(platform, data)
    return battle.id, seats


async def _fork(platform: Platform, battle_id: str, seq: int) -> tuple[str, list[dict]]:
    from app.services.history.battlefile import fork_into

    battle, seats = await fork_into(platform, battle_id, seq)
    return battle.id, seats


def _write_json(command: str, work: Callable[[Platform], Awaitable[Any]]) -> int:
    """Run `work` on a platform and print what it answers as JSON (a refusal: exit 1, in words)."""
    from app.services.errors import ServiceError

    try:
        data = asyncio.run(_with_platform(work))
    except ServiceError as exc:
        print(f"{command}: {exc.message}", file=sys.stderr)
        return 1
    json.dump(data, sys.stdout, indent=1, ensure_ascii=False)
    print()
    return 0


def _read_file(command: str, path: str, work: Callable[[Platform, dict], Awaitable[Done]]) -> Done | None:
    """A file read as strictly as the doors' imports read one, handed to `work` (None: refused,
    said on stderr)."""
    from app.services.errors import ServiceError
    from app.web.battle_file_reader import read_battle_file

    try:
        data = read_battle_file(Path(path).read_bytes())
        return asyncio.run(_with_platform(lambda platform: work(platform, data)))
    except (OSError, ValueError) as exc:
        print(f"{command}: {path}: {exc}", file=sys.stderr)
    except ServiceError as exc:
        print(f"{command}: refused: {exc.message}", file=sys.stderr)
    return None


def export_file(battle_id: str) -> int:
    return _write_json("export", lambda platform: _export(platform, battle_id))


def import_file(path: str) -> int:
    made = _read_file("import", path, _import)
    return 1 if made is None else _print_made(*made)


async def _export_campaign(platform: Platform, campaign_id: str) -> dict:
    from app.services.campaigns.files import export_campaign

    async with platform.db.reader() as session:
        return await export_campaign(session, campaign_id)


async def _import_campaign(platform: Platform, data: dict) -> dict:
    from app.services.campaigns.files import import_campaign

    made = await import_campaign(platform, data)
    return {"campaign": made["campaign"].id, "seats": made["seats"], "battles": made["battles"]}


def export_campaign_file(campaign_id: str) -> int:
    """A campaign as one file, its battles inside: any size (the web doors stop at MAX_BODY_BYTES)."""
    return _write_json("campaign-export", lambda platform: _export_campaign(platform, campaign_id))


def import_campaign_file(path: str) -> int:
    """A new campaign from a campaign file; prints the new campaign's id and each seat's token (JSON)."""
    made = _read_file("campaign-import", path, _import_campaign)
    if made is None:
        return 1
    json.dump(made, sys.stdout, indent=1)
    print()
    return 0


def fork_battle(battle: str, seq: int) -> int:
    from app.services.errors import ServiceError

    try:
        battle_id, seats = asyncio.run(_with_platform(lambda platform: _fork(platform, battle, seq)))
    except ServiceError as exc:
        print(f"fork: refused: {exc.message}", file=sys.stderr)
        return 1
    return _print_made(battle_id, seats)


def _print_made(battle_id: str, seats: list[dict]) -> int:
    base = get_settings().public_base_url
    print(f"battle {battle_id}")
    for seat in seats:
        print(f"  {seat['role']:<10} {seat['name']:<20} {base}/join#{seat['token']}")
    return 0


def verify_file(path: str) -> int:
    from app.services.errors import ServiceError
    from app.services.history import battlefile

    try:
        result = battlefile.verify_file(json.loads(Path(path).read_text(encoding="utf-8")))
    except (OSError, ValueError) as exc:
        print(f"verify: {path}: {exc}", file=sys.stderr)
        return 1
    except (ServiceError, KeyError, TypeError) as exc:
        print(
            f"verify: {path}: {getattr(exc, 'message', None) or f'not a battle file ({exc!r})'}",
            file=sys.stderr,
        )
        return 1
    for bad in result["mismatches"]:
        print(
            f"seq {bad['seq']} die {bad['index']} (d{bad['sides']}, {bad.get('purpose') or 'no purpose'}):"
            f" recorded {bad['value']}, the seed makes {bad['expected']}"
        )
    for source in result["sources"][:-1]:  # dice rolled before an import, in another battle
        count = sum(1 for roll in result["unchecked"] if result["sources"][roll["source"]] is source)
        if count:
            print(
                f"{count} dice up to seq {source['through_seq']} were rolled in battle {source['battle']},"
                " whose seed is not revealed yet: they cannot be checked until it has ended"
            )
    good = result["rolls"] - len(result["mismatches"]) - len(result["unchecked"])
    print(
        f"{good} of {result['rolls']} dice match the revealed seed{'s' if len(result['sources']) > 1 else ''}"
    )
    return 1 if result["mismatches"] else 0


def backup_database(out: str | None) -> int:
    from app.operations.backup import BackupError, backup, default_name

    url = get_settings().database_url
    try:
        written = backup(url, Path(out) if out else default_name(url, ROOT / "var" / "backups"))
    except BackupError as exc:
        print(f"backup: {exc}", file=sys.stderr)
        return 1
    print(written)
    return 0


def restore_database(source: str, into: str | None, clean: bool) -> int:
    from app.operations.backup import BackupError, restore

    try:
        restore(Path(source), into or get_settings().database_url, clean=clean)
    except BackupError as exc:
        print(f"restore: {exc}", file=sys.stderr)
        return 1
    print(
        "restored; run `python -m app.cli migrate` with this DATABASE_URL if this app is newer than the backup"
    )
    return 0


async def _archive(platform: Platform, days: float, to: Path, remove: bool) -> list:
    from datetime import timedelta

    from app.operations.archive import archive_finished

    return await archive_finished(platform, timedelta(days=days), to, remove)


def archive_battles(days: float, to: str, remove: bool) -> int:
    done = asyncio.run(_with_platform(lambda platform: _archive(platform, days, Path(to), remove)))
    for item in done:
        gone = "; removed from the database" if item.removed else ""
        print(f"archived {item.battle_id} ({item.actions} actions) to {item.path}{gone}")
    print(f"{len(done)} finished battle{'s' if len(done) != 1 else ''} older than {days:g} days archived")
    return 0


def print_links(links: list[dict]) -> None:
    print("\n=== Starboard demo battles ===")
    for battle in links:
        print(f"\n{battle['battle']}")
        for who, url in battle["links"].items():
            print(f"  {who:<10} {url}")
    print("\nOpen a link in a browser (use a private window per player). API docs: /docs\n", flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="starboard")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("migrate")
    demo_cmd = sub.add_parser("demo")
    demo_cmd.add_argument("--base-url", default="http://127.0.0.1:8000")
    serve = sub.add_parser("serve")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--workers", type=int, default=1)
    serve.add_argument("--no-demo", action="store_true")
    serve.add_argument("--no-migrate", action="store_true", help="the database is migrated already")
    export_cmd = sub.add_parser("export", help="write a battle as a file (JSON) to stdout")
    export_cmd.add_argument("battle")
    import_cmd = sub.add_parser("import", help="create a new battle from a battle file")
    import_cmd.add_argument("file")
    campaign_export = sub.add_parser(
        "campaign-export", help="write a campaign (its battles inside) to stdout"
    )
    campaign_export.add_argument("campaign")
    campaign_import = sub.add_parser("campaign-import", help="create a new campaign from a campaign file")
    campaign_import.add_argument("file")
    fork_cmd = sub.add_parser("fork", help="start a what-if battle from a seq of an existing one")
    fork_cmd.add_argument("battle")
    fork_cmd.add_argument("seq", type=int)
    verify_cmd = sub.add_parser("verify", help="recompute every die of a battle file from its revealed seed")
    verify_cmd.add_argument("file")
    backup_cmd = sub.add_parser(
        "backup", help="a consistent copy of DATABASE_URL (pg_dump or SQLite's backup API)"
    )
    backup_cmd.add_argument(
        "file", nargs="?", help="where to write it (default: var/backups/starboard-<time>.*)"
    )
    restore_cmd = sub.add_parser("restore", help="load a backup into an empty database (stop the app first)")
    restore_cmd.add_argument("file")
    restore_cmd.add_argument("--into", help="the database URL to restore into (default: DATABASE_URL)")
    restore_cmd.add_argument("--clean", action="store_true", help="replace what the target database holds")
    archive_cmd = sub.add_parser("archive", help="write finished battles older than N days as battle files")
    archive_cmd.add_argument("--older-than-days", type=float, required=True)
    archive_cmd.add_argument("--to", required=True, help="the directory the battle files go to")
    archive_cmd.add_argument(
        "--remove", action="store_true", help="delete each from the database once written"
    )
    args = parser.parse_args(argv)

    if args.command == "migrate":
        migrate()
    elif args.command == "export":
        sys.exit(export_file(args.battle))
    elif args.command == "import":
        sys.exit(import_file(args.file))
    elif args.command == "campaign-export":
        sys.exit(export_campaign_file(args.campaign))
    elif args.command == "campaign-import":
        sys.exit(import_campaign_file(args.file))
    elif args.command == "fork":
        sys.exit(fork_battle(args.battle, args.seq))
    elif args.command == "verify":
        sys.exit(verify_file(args.file))
    elif args.command == "archive":
        sys.exit(archive_battles(args.older_than_days, args.to, args.remove))
    elif args.command == "backup":
        sys.exit(backup_database(args.file))
    elif args.command == "restore":
        sys.exit(restore_database(args.file, args.into, args.clean))
    elif args.command == "demo":
        migrate()
        print_links(demo(args.base_url, fresh=True))
    else:
        # Join links name the address served unless PUBLIC_BASE_URL says where players reach it.
        os.environ.setdefault("PUBLIC_BASE_URL", f"http://{args.host}:{args.port}")
        get_settings.cache_clear()
        refused = get_settings().refusal()
        if refused is not None:  # before migrating or serving: one line, exit status 1
            sys.exit(f"starboard: refusing to start in production: {refused}")
        if not args.no_migrate:
            migrate()
        if not args.no_demo:
            print_links(demo(get_settings().public_base_url, fresh=False))
        import uvicorn

        from app.web.middleware.serving import WS_PROTOCOL, HeaderDeadlineHttpToolsProtocol

        settings = get_settings()
        uvicorn.run(
            "app.main:create_app",
            factory=True,
            host=args.host,
            port=args.port,
            workers=args.workers,
            http=HeaderDeadlineHttpToolsProtocol,
            ws=WS_PROTOCOL,
            ws_max_size=settings.max_ws_frame_bytes,
            timeout_keep_alive=settings.timeout_keep_alive,
            proxy_headers=True,
            forwarded_allow_ips=settings.forwarded_allow_ips,
            timeout_graceful_shutdown=settings.shutdown_deadline_seconds,  # SIGTERM: docs/operations.md
        )


if __name__ == "__main__":
    main()
