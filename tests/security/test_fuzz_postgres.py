"""The REST API's schema fuzz (test_fuzz.py) on PostgreSQL: a file of its own, so it runs on one
worker while the SQLite run goes on the other."""

from __future__ import annotations

import pytest

from tests.security.test_fuzz import fuzz_the_api

pytestmark = [pytest.mark.fuzz, pytest.mark.timeout(420)]


def test_the_rest_api_survives_a_fuzz_from_its_own_schema_on_postgres(postgres_url: str) -> None:
    fuzz_the_api(postgres_url)
