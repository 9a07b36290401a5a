"""Issue 14: error pages for people — an unknown page, a bad query or a server fault in a browser
gets an HTML page (404, 422, 500) with a way back; REST (/api/...) keeps its JSON error shape."""

from __future__ import annotations

import html

import httpx

from tests.helpers import set_table

BROWSER = {"accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}


def way_back(page: str) -> bool:
    return '<a href="/">Back to your battles</a>' in page


async def test_unknown_page_and_bad_query_are_pages_in_a_browser_and_json_in_rest(
    client: httpx.AsyncClient,
) -> None:
    r = await client.get("/no/such/page", headers=BROWSER)
    assert r.status_code == 404 and r.headers["content-type"].startswith("text/html")
    assert "<h1>There is no such page</h1>" in r.text and way_back(r.text)
    r = await client.get("/api/v1/no/such/thing", headers=BROWSER)
    assert r.status_code == 404 and r.json()["detail"]["error"] == "NotFound"
    table = await set_table(client)
    r = await client.get(f"/battles/{table.battle_id}/replay?seq=abc", headers=BROWSER)
    assert r.status_code == 422 and r.headers["content-type"].startswith("text/html")
    text = html.unescape(r.text)
    assert "<h1>The address asks for something this page cannot show</h1>" in text
    assert "<p>Seq: must be a whole number (you sent “abc”)</p>" in text and way_back(text)
    r = await client.get(f"/api/v1/battles/{table.battle_id}/events?since=abc", headers=table.auth("ref"))
    assert r.status_code == 422 and r.json()["detail"] == {
        "error": "Invalid",
        "field": "since",
        "reason": "since: must be a whole number (you sent “abc”)",
    }


async def test_a_server_fault_is_a_page_in_a_browser_and_json_in_rest(client: httpx.AsyncClient) -> None:
    app = client.app  # type: ignore[attr-defined]

    async def boom() -> None:
        raise RuntimeError("a fault nobody answered")

    app.add_api_route("/test-boom", boom)
    app.add_api_route("/api/v1/test-boom", boom)
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
        r = await c.get("/test-boom", headers=BROWSER)
        assert r.status_code == 500 and r.headers["content-type"].startswith("text/html")
        assert "<h1>Something went wrong on the server</h1>" in r.text and way_back(r.text)
        assert "a fault nobody answered" not in r.text  # the fault stays in the server's log
        r = await c.get("/api/v1/test-boom", headers=BROWSER)
        assert r.status_code == 500 and r.json()["detail"] == {
            "error": "ServerError",
            "field": None,
            "reason": "the fault is logged; try again, or go back to your battles",
        }
