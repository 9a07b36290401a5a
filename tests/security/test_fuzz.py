"""Property-based fuzz of the REST API from its own OpenAPI document (schemathesis), against a real
uvicorn server on SQLite and on PostgreSQL, authenticated as the referee of a battle made for it.

Every operation gets STARBOARD_FUZZ_EXAMPLES valid (positive) and as many invalid (negative) cases
(12 by default; the cases are derandomized, so each run sends the
same ones: set it higher for a deeper search, as `STARBOARD_FUZZ_EXAMPLES=50` before a release). Each answer must be no server error
(5xx), a status the operation documents, with the documented content type, headers and body
schema. `-m "not fuzz"` skips it locally; CI runs it."""

from __future__ import annotations

import os
import time
from collections import Counter

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from tests.conftest import Server

# Every operation of the API, twice 12 cases: the one test whose length grows with the API, so it
# has a longer bound than the suite's two minutes a test.
pytestmark = [pytest.mark.fuzz, pytest.mark.timeout(420)]

EXAMPLES = int(os.environ.get("STARBOARD_FUZZ_EXAMPLES", "12"))
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]


def _table(url: str) -> tuple[str, dict[str, str], str]:
    with httpx.Client(base_url=url) as c:
        created = c.post("/api/v1/battles", json={"name": "Fuzzed", "system": "b5wars"}).json()
        auth = {"Authorization": f"Bearer {created['referee']['token']}"}
        seat = c.post(
            f"/api/v1/battles/{created['battle_id']}/participants", json={"name": "target"}, headers=auth
        )
        return created["battle_id"], auth, seat.json()["participant_id"]


def _campaign(url: str) -> tuple[str, dict[str, str]]:
    """A campaign with one ship, fuzzed as its referee (docs/campaigns.md)."""
    with httpx.Client(base_url=url) as c:
        made = c.post(
            "/api/v1/campaigns", json={"name": "Fuzzed", "system": "traveller", "sides": ["A", "B"]}
        ).json()
        auth = {"Authorization": f"Bearer {made['referee']['token']}"}
        c.post(
            f"/api/v1/campaigns/{made['campaign_id']}/ships",
            json={"side": "A", "library": "tr-arbellatra-cruiser"},
            headers=auth,
        )
        return made["campaign_id"], auth


def _fuzz_operation(
    operation: schemathesis.APIOperation,
    mode: schemathesis.GenerationMode,
    url: str,
    auth: dict[str, str],
    fixed: dict[str, str],
    ran: Counter[str],
    statuses: Counter[int],
) -> None:
    @given(case=operation.as_strategy(mode, path_parameters=fixed or None))
    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        derandomize=True,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    def fuzz(case: schemathesis.Case) -> None:
        response = case.call(base_url=url, headers=auth, timeout=15)
        ran[operation.label] += 1
        statuses[response.status_code] += 1
        case.validate_response(response, checks=CHECKS)

    fuzz()


def test_the_rest_api_survives_a_fuzz_from_its_own_schema_on_sqlite(sqlite_url: str) -> None:
    fuzz_the_api(sqlite_url)


def fuzz_the_api(db_url: str) -> None:
    """The whole fuzz against a server on `db_url` (the PostgreSQL run is its own file,
    test_fuzz_postgres.py, so the two databases' runs can go to two workers side by side)."""
    server = Server(db_url)
    try:
        battle_id, auth, seat_id = _table(server.url)
        campaign_id, campaign_auth = _campaign(server.url)
        schema = schemathesis.openapi.from_url(f"{server.url}/openapi.json")
        ran: Counter[str] = Counter()
        statuses: Counter[int] = Counter()
        failures: list[str] = []
        started = time.monotonic()
        for result in schema.get_all_operations():
            operation = result.ok()
            if operation.path.endswith("/feed"):  # an event stream stays open: tests/web/test_feed.py
                continue
            ids = {
                "battle_id": battle_id,
                "participant_id": seat_id,
                "campaign_id": campaign_id,
                "ship_id": "s1",
            }
            fixed = {k: v for k, v in ids.items() if f"{{{k}}}" in operation.path}
            bearer = campaign_auth if "/campaigns/" in operation.path else auth  # a campaign's own seat
            for mode in (schemathesis.GenerationMode.POSITIVE, schemathesis.GenerationMode.NEGATIVE):
                try:
                    _fuzz_operation(operation, mode, server.url, bearer, fixed, ran, statuses)
                except Unsatisfiable:  # no invalid input exists: an operation without parameters
                    assert mode is schemathesis.GenerationMode.NEGATIVE and not fixed, operation.label
                except Exception as exc:  # collect every operation's failure, then report them all
                    failures.append(f"{operation.label} ({mode.value}): {exc}")
        elapsed = time.monotonic() - started
        total = sum(ran.values())
        print(f"\nfuzz on {db_url.split(':')[0]}: {total} cases in {elapsed:.1f}s, statuses {dict(statuses)}")
        for label, n in sorted(ran.items()):
            print(f"  {n:4d}  {label}")
        assert not failures, "\n\n".join(failures)
        assert len(ran) >= 11 and total >= len(ran) * EXAMPLES, ran
        assert not any(s >= 500 for s in statuses)
    finally:
        server.stop()
