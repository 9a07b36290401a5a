"""Backups that restore: `python -m app.cli backup` / `restore`.

PostgreSQL: `pg_dump --format=custom` — one consistent snapshot taken inside a single transaction
while the app goes on serving — and `pg_restore` into an empty database, in one transaction (a
restore that fails leaves nothing half-done). SQLite: the online backup API, which copies a
consistent snapshot while other connections keep writing. Either way a battle comes back exactly
as it was at one moment: its snapshot matches its log, its dice still verify.

The password never goes on a command line (other users of the machine could read it there): it is
handed to pg_dump/pg_restore in PGPASSWORD."""

from __future__ import annotations

import os
import sqlite3
import subprocess
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy.engine import URL, make_url


class BackupError(Exception):
    """A backup or restore that could not be done; the message is one line for the operator."""


def is_sqlite(database_url: str) -> bool:
    return make_url(database_url).get_backend_name() == "sqlite"


def default_name(database_url: str, directory: Path) -> Path:
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    return directory / f"starboard-{stamp}.{'sqlite3' if is_sqlite(database_url) else 'pgdump'}"


def backup(database_url: str, out: Path) -> Path:
    """Write a consistent copy of the database at `database_url` to `out` (refuses to overwrite)."""
    if out.exists():
        raise BackupError(f"{out} exists already; choose another file")
    out.parent.mkdir(parents=True, exist_ok=True)
    if is_sqlite(database_url):
        source = _sqlite_path(database_url)
        if not source.exists():
            raise BackupError(f"no SQLite database at {source}")
        _copy(source, out)
        return out
    url = make_url(database_url)
    _run(
        ["pg_dump", "--format=custom", "--no-owner", "--no-privileges", "--file", str(out), *_pg_args(url)],
        url,
    )
    return out


def restore(source: Path, database_url: str, clean: bool = False) -> None:
    """Load a backup into the database at `database_url`: an empty one, unless `clean` (then
    what is there is replaced). Stop the app processes using that database first."""
    if not source.exists():
        raise BackupError(f"no backup at {source}")
    if is_sqlite(database_url):
        target = _sqlite_path(database_url)
        if target.exists() and target.stat().st_size > 0 and not clean:
            raise BackupError(f"{target} exists; restore into a new file, or pass --clean to replace it")
        target.parent.mkdir(parents=True, exist_ok=True)
        _copy(source, target)
        return
    url = make_url(database_url)
    options = ["--clean", "--if-exists"] if clean else []
    _run(
        [
            "pg_restore",
            "--no-owner",
            "--no-privileges",
            "--exit-on-error",
            "--single-transaction",
            *options,
            *_pg_args(url),
            str(source),
        ],
        url,
    )


def _sqlite_path(database_url: str) -> Path:
    database = make_url(database_url).database
    if not database or database == ":memory:":
        raise BackupError("an in-memory SQLite database has nothing to back up")
    return Path(database)


def _copy(source: Path, target: Path) -> None:
    """SQLite's online backup: a consistent copy of every page, while others go on writing."""
    with closing(sqlite3.connect(source)) as src, closing(sqlite3.connect(target)) as dst:
        src.backup(dst)


def _pg_args(url: URL) -> list[str]:
    args = ["--dbname", url.database or ""]
    if url.host:
        args += ["--host", url.host]
    if url.port:
        args += ["--port", str(url.port)]
    if url.username:
        args += ["--username", url.username]
    return args


def _run(command: list[str], url: URL) -> None:
    env = {**os.environ}
    if url.password:
        env["PGPASSWORD"] = str(url.password)
    try:
        done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    except FileNotFoundError as exc:
        raise BackupError(
            f"{command[0]} is not installed (Debian: apt-get install postgresql-client)"
        ) from exc
    if done.returncode != 0:
        first = next((line for line in done.stderr.splitlines() if line.strip()), "no message")
        raise BackupError(f"{command[0]} failed: {first}")
