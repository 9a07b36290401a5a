"""A browser opening a page that fails gets an HTML page (a title, one h1, a way home) in
the same words as the JSON error; the API, scripts and htmx requests keep the JSON shape."""

from __future__ import annotations

import httpx

PAGE = {"accept": "text/html,application/xhtml+xml"}


async def test_a_browser_gets_an_html_error_page(client: httpx.AsyncClient) -> None:
    r = await client.get("/nowhere", headers=PAGE)
    assert r.status_code == 404 and r.headers["content-type"].startswith("text/html"), r.text[:200]
    assert '<html lang="en">' in r.text and r.text.count("<h1") == 1 and 'href="/"' in r.text
    assert "<title>There is no such page · Starboard</title>" in r.text


async def test_the_api_and_htmx_keep_json_errors(client: httpx.AsyncClient) -> None:
    r = await client.get("/api/v1/battles/no-such-battle", headers=PAGE)
    assert r.headers["content-type"].startswith("application/json") and "detail" in r.json()
    r = await client.get("/nowhere", headers={**PAGE, "hx-request": "true"})
    assert r.json()["detail"]["error"] == "NotFound"
    r = await client.get("/nowhere")
    assert r.json()["detail"]["error"] == "NotFound"
