"""Debian chromium driven by Playwright (async API, so it shares pytest-asyncio's loop)."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
from playwright.async_api import Browser, Page, async_playwright

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
    """Debian chromium. Missing, the browser tests fail: scripts/test.sh installs it; a run without
    it deselects them with -m "not browser"."""
    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail(
            f"chromium is not installed ({CHROMIUM}): install Debian's chromium (scripts/test.sh does), "
            'or deselect the tests that need it with -m "not browser"',
            pytrace=False,
        )
    async with async_playwright() as p:
        b = await p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        await b.close()


async def wait_until(page, expression: str, timeout: float = 10000) -> None:  # type: ignore[no-untyped-def]
    """Poll a JavaScript expression until it is true. page.wait_for_function polls with eval inside
    the page, which the Content-Security-Policy (script-src 'self', no 'unsafe-eval') forbids;
    page.evaluate goes through the DevTools protocol, which the policy does not govern."""
    from playwright.async_api import TimeoutError as PlaywrightTimeout

    deadline = asyncio.get_running_loop().time() + timeout / 1000
    while not await page.evaluate(expression):
        if asyncio.get_running_loop().time() > deadline:
            raise PlaywrightTimeout(f"{expression!r} still false after {timeout} ms")
        await asyncio.sleep(0.05)


@asynccontextmanager
async def phone_page(browser: Browser, url: str) -> AsyncIterator[tuple[Page, list[str]]]:
    """A phone-sized touch page (390 × 844) opened at `url` (a join link) and live, with the script
    errors it raises so far; closed on leaving."""
    context = await browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True)
    page = await context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        await page.goto(url)
        await wait_until(page, "document.documentElement.dataset.live === 'connected'")
        yield page, errors
    finally:
        await context.close()
