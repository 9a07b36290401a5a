"""Debian chromium driven by Playwright (async API, so it shares pytest-asyncio's loop)."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator

import pytest
from playwright.async_api import Browser, async_playwright

CHROMIUM = os.environ.get("STARBOARD_CHROMIUM", "/usr/bin/chromium")
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/browser" in str(item.fspath):
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
async def browser() -> AsyncIterator[Browser]:
    async with async_playwright() as p:
        b = await p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        await b.close()
