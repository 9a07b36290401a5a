"""Command line: `python -m app.cli serve` migrates, loads the demo once, prints the links and serves.

- `python -m app.cli migrate`: alembic upgrade head on DATABASE_URL
- `python -m app.cli demo`: create the demo battles (again) and print their links
- `python -m app.cli serve [--host 127.0.0.1] [--port 8000] [--workers 1] [--no-demo] [--no-migrate]`

`serve` runs uvicorn with the limits from the configuration: TIMEOUT_KEEP_ALIVE, HEADER_TIMEOUT (a
deadline for each request's headers, see app/web/serving.py), MAX_HEADER_BYTES (h11), the websocket
frame limit, and --proxy-headers trusting FORWARDED_ALLOW_IPS. PUBLIC_BASE_URL defaults to the
address served.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys

from app.config import ROOT, get_settings


def migrate() -> None:
    subprocess.run([sys.executable, "-m", "alembic", "upgrade", "head"], cwd=ROOT, check=True)


async def _demo(base_url: str) -> list[dict]:
    from app.db import Database
    from app.demo import create_demos
    from app.realtime.broker import Broker
    from app.services.platform import Platform

    settings = get_settings()
    platform = Platform(settings=settings, db=Database(settings.database_url), broker=Broker())
    try:
        return await create_demos(platform, base_url)
    finally:
        await platform.db.dispose()


def demo(base_url: str, *, fresh: bool) -> list[dict]:
    from app.demo import save_links, saved_links

    links = None if fresh else saved_links()
    if links is None:
        links = asyncio.run(_demo(base_url))
        save_links(links)
    return links


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
    args = parser.parse_args(argv)

    if args.command == "migrate":
        migrate()
    elif args.command == "demo":
        migrate()
        print_links(demo(args.base_url, fresh=True))
    else:
        # Join links name the address served unless PUBLIC_BASE_URL says where players reach it.
        os.environ.setdefault("PUBLIC_BASE_URL", f"http://{args.host}:{args.port}")
        get_settings.cache_clear()
        if not args.no_migrate:
            migrate()
        if not args.no_demo:
            print_links(demo(get_settings().public_base_url, fresh=False))
        import uvicorn

        from app.web.serving import HeaderDeadlineH11Protocol

        settings = get_settings()
        uvicorn.run(
            "app.main:create_app",
            factory=True,
            host=args.host,
            port=args.port,
            workers=args.workers,
            http=HeaderDeadlineH11Protocol,
            ws_max_size=settings.max_ws_frame_bytes,
            timeout_keep_alive=settings.timeout_keep_alive,
            h11_max_incomplete_event_size=settings.max_header_bytes,
            proxy_headers=True,
            forwarded_allow_ips=settings.forwarded_allow_ips,
        )


if __name__ == "__main__":
    main()
