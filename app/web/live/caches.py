"""Every cache this process keeps, in one list: what each holds, what makes an entry wrong and
what drops it, and its bound.

A newcomer reading a frame or an action should not have to find the caches by surprise: each one
is named here, and a test (tests/web/test_caches_listed.py) fails when a module starts keeping
something (a memo, an LRU, `functools.cache`) that this list does not name. A cache stays only
while it pays for itself on the mixed-table benchmark (docs/benchmarks.md, "Which devices stay").

Every cache is this process's own: each server process keeps its own, a restart starts empty, and
none is ever the truth — the database is. Entries are read-only once kept (a hit returns the very
object kept), so "invalidated" below always means "a later key misses", never "changed in place".
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Cache:
    """One process-local cache: where it lives (module and name), what it holds, what makes an
    entry stale (and so what key or event drops it), and how many entries it keeps at most."""

    module: str
    name: str
    holds: str
    invalidated_by: str
    bound: str


DEPLOY = "nothing while serving: what it reads changes only with a deploy (a restart)"

CACHES: tuple[Cache, ...] = (
    # -- the live path (a frame's rendering) -------------------------------------------------
    Cache(
        "app/web/drawing/cards.py",
        "CardMemo",
        "ship cards as drawn for a frame (zlib-packed), by a digest of everything their templates read",
        "any change in what a card reads is a new digest (a miss); a template that reads something "
        "the digest does not name turns the memo off",
        "512 cards, least recently used first out (one per LiveViews)",
    ),
    Cache(
        "app/web/drawing/cards.py",
        "_parsed",
        "what each card template reads and includes (jinja2.meta), by its source text",
        "a changed source (STARBOARD_TEMPLATE_RELOAD=1) is a new key",
        "one entry per template source, per template environment (weakly held)",
    ),
    Cache(
        "app/services/reading/live_log.py",
        "LiveLogs",
        "per watched battle: what frames derive from its log (map rows, ⚑ marks, the step's start), "
        "this process's last commit, and the seats",
        "the log only grows: a round extends it with the rows after the last seq seen; the commit "
        "is used only while it is the newest seq heard of; the seats drop on a seats wake-up "
        "(Topic.SEATS, the hub's refresh count) or after 30 s",
        "the battles watched, least recently used first out",
    ),
    Cache(
        "app/realtime/hub.py",
        "Sent",
        "per socket, each region's HTML as last sent (what the page holds: `Held`, its length, hash "
        "and text — zlib-packed from 1 KB), shared by viewers sent the same frames — the base a "
        "region's hunks are made against",
        "a hello (the page may hold less: every region is sent whole again); a frame replaces it",
        "one record per distinct page state; dropped with the socket",
    ),
    Cache(
        "app/web/drawing/render.py",
        "LiveRead",
        "for one round: each ship part's display values by how the part is shown (`common`), so "
        "views that see a part alike share one answer",
        "nothing: it lives as long as the round's read (one state), and goes with it",
        "the parts of the battle's ships, times the ways each is shown (public, whole)",
    ),
    # -- the write path ----------------------------------------------------------------------
    Cache(
        "app/services/kept.py",
        "KeptStates",
        "each battle's last committed state, battle row and acting seats from this process",
        "the battle's version: a commit by any process moves it, and the write is guarded on it "
        "(a guard that fails means a whole read)",
        "the battles acted on, least recently used first out; 32 seats a battle",
    ),
    # -- reads for pages ---------------------------------------------------------------------
    Cache(
        "app/services/reading/report_cache.py",
        "ReportCache",
        "built battle reports, by battle, seq and whom they were built for",
        "a new action moves the seq (a miss); storing one drops the battle's earlier seqs",
        "256 reports, least recently used first out",
    ),
    Cache(
        "app/services/reading/views.py",
        "payload_schema",
        "each action's payload JSON schema (pydantic builds it anew on every call), for the offers "
        "and the action catalogue",
        DEPLOY,
        "one per action model",
    ),
    Cache("app/services/library/samples.py", "library", "the ship library's files", DEPLOY, "one"),
    Cache("app/web/drawing/rulebook.py", "reference", "the rules reference, parsed", DEPLOY, "one"),
    Cache("app/web/drawing/rulebook.py", "known_ids", "the rule ids the reference names", DEPLOY, "one"),
    Cache("app/web/api/health.py", "migrations_head", "the newest migration's id", DEPLOY, "one"),
    Cache("app/config.py", "get_settings", "the settings read from the environment", DEPLOY, "one"),
)
