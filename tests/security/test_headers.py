"""Every answer carries the policy headers; /docs loads nothing from another site; cookies are
Secure over HTTPS; join links come from PUBLIC_BASE_URL; the OpenAPI document declares every
error an operation can answer, with the error body's schema."""

from __future__ import annotations

import re

import httpx

from app.main import create_app
from tests.conftest import settings_for
from tests.helpers import set_table
from tests.security.util import browser

EXPECTED = {"x-frame-options": "DENY", "referrer-policy": "same-origin", "x-content-type-options": "nosniff"}

# A seat's bounded writes: its own errors, the body limit, validation, the rate limit, a full queue.
SEAT_BOUNDED = {"401", "403", "404", "413", "422", "429", "503"}


def policy(r: httpx.Response) -> dict[str, str]:
    csp = r.headers["content-security-policy"]
    return {d.split()[0]: " ".join(d.split()[1:]) for d in (p.strip() for p in csp.split(";")) if d}


async def test_every_answer_carries_the_policy_headers(client: httpx.AsyncClient) -> None:
    table = await set_table(client)
    async with browser(client, table.tokens["ann"]) as ann:
        answers = [
            await ann.get("/"),
            await ann.get(f"/battles/{table.battle_id}"),
            await ann.get(f"/battles/{table.battle_id}/replay"),
            await ann.get("/join"),
            await ann.get("/docs"),
            await ann.get("/openapi.json"),
            await ann.get("/static/js/live.js"),
            await ann.get("/static/vendor/swagger-ui-dist-5.35.0/swagger-ui-bundle.js"),
            await ann.get("/api/v1/actions"),
            await ann.get(f"/api/v1/battles/{table.battle_id}"),  # 401
            await ann.get("/nowhere"),  # 404
            await ann.post("/api/v1/battles", content=b"x" * 70_000),  # 413 from the body limit
        ]
    assert [r.status_code for r in answers] == [200] * 9 + [401, 404, 413]
    for r in answers:
        for name, value in EXPECTED.items():
            if name == "referrer-policy" and r.url.path.startswith("/join"):
                value = "no-referrer"  # join pages send no Referer at all
            assert r.headers[name] == value, (r.url, name)
        csp = policy(r)
        assert csp["script-src"] == "'self'" and csp["default-src"] == "'self'", r.url
        assert csp["frame-ancestors"] == "'none'" and csp["object-src"] == "'none'"
        assert "unsafe-inline" not in r.headers["content-security-policy"]
        assert "unsafe-eval" not in r.headers["content-security-policy"]


async def test_pages_have_no_inline_scripts_or_styles(client: httpx.AsyncClient) -> None:
    """What the policy would block: inline <script> bodies, on* handlers, style attributes/blocks."""
    table = await set_table(client)
    async with browser(client, table.tokens["ref"]) as ref:
        pages = [(await ref.get(p)).text for p in ("/", f"/battles/{table.battle_id}", "/join", "/docs")]
    for html in pages:
        for script in re.findall(r"<script\b([^>]*)>(.*?)</script>", html, re.S):
            assert 'src="/static/' in script[0] and not script[1].strip(), script
        assert not re.search(r"\son[a-z]+\s*=", html), "inline event handler"
        assert not re.search(r"<style\b|\sstyle\s*=", html), "inline style"


async def test_docs_are_served_from_vendored_files(client: httpx.AsyncClient) -> None:
    docs = await client.get("/docs")
    assert docs.status_code == 200
    assert "cdn" not in docs.text.lower() and not re.search(r"(src|href)=\"(https?:)?//", docs.text)
    for path in re.findall(r'(?:src|href)="(/static/[^"]+)"', docs.text):
        assert (await client.get(path)).status_code == 200, path
    assert (await client.get("/redoc")).status_code == 404


async def test_cookies_are_secure_when_the_request_came_over_https(db_url: str) -> None:
    for mode, scheme, secure in [
        ("auto", "https", True),
        ("auto", "http", False),
        ("true", "http", True),
        ("false", "https", False),
    ]:
        app = create_app(settings_for(db_url).model_copy(update={"secure_cookies": mode}))
        transport = httpx.ASGITransport(app=app)
        async with (
            app.router.lifespan_context(app),
            httpx.AsyncClient(transport=transport, base_url=f"{scheme}://testserver") as c,
        ):
            cookie = (await c.get("/")).headers["set-cookie"].lower()
        assert ("; secure" in cookie) is secure, (mode, scheme, cookie)
        assert "httponly" in cookie and "samesite=lax" in cookie


async def test_join_links_come_from_public_base_url_not_the_host_header(db_url: str) -> None:
    settings = settings_for(db_url).model_copy(update={"public_base_url": "https://play.example.org"})
    app = create_app(settings)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver") as c,
    ):
        r = await c.post(
            "/api/v1/battles", json={"name": "n", "system": "sfb"}, headers={"Host": "evil.example"}
        )
        created = r.json()
        assert (
            created["referee"]["join_url"] == f"https://play.example.org/join#{created['referee']['token']}"
        )
        seat = await c.post(
            f"/api/v1/battles/{created['battle_id']}/participants",
            json={"name": "ann"},
            headers={"Host": "evil.example", "Authorization": f"Bearer {created['referee']['token']}"},
        )
        assert seat.json()["join_url"].startswith("https://play.example.org/join#")


async def test_the_openapi_document_declares_every_error(client: httpx.AsyncClient) -> None:
    doc = (await client.get("/openapi.json")).json()
    error = doc["components"]["schemas"]["ErrorResponse"]
    assert error["properties"]["detail"]["$ref"].endswith("/ErrorBody")
    body = doc["components"]["schemas"]["ErrorBody"]
    assert set(body["required"]) == {"error", "field", "reason"}
    assert doc["components"]["securitySchemes"]["HTTPBearer"]["scheme"] == "bearer"
    # Every operation can answer 413 and 422 (checked at the door before any route); the rest are its own.
    expected = {
        ("post", "/api/v1/battles"): {"413", "422", "429"},
        ("get", "/api/v1/battles/{battle_id}"): {"401", "403", "404", "413", "422"},
        ("get", "/api/v1/battles/{battle_id}/events"): {"401", "403", "404", "413", "422"},
        ("post", "/api/v1/battles/{battle_id}/actions"): {"401", "403", "404", "409", "413", "422"},
        ("post", "/api/v1/battles/{battle_id}/participants"): {"401", "403", "404", "413", "422"},
        ("post", "/api/v1/battles/{battle_id}/participants/{participant_id}/token"): {
            "401",
            "403",
            "404",
            "413",
            "422",
        },
        ("delete", "/api/v1/battles/{battle_id}/participants/{participant_id}"): {
            "401",
            "403",
            "404",
            "413",
            "422",
        },
        ("get", "/api/v1/battles/{battle_id}/dice"): {"401", "403", "404", "413", "422"},
        ("get", "/api/v1/battles/{battle_id}/audit"): {"401", "403", "404", "413", "422"},
        ("get", "/api/v1/battles/{battle_id}/report"): {"401", "403", "404", "413", "422"},
        ("get", "/api/v1/library"): {"413", "422"},
        ("get", "/api/v1/actions"): {"413", "422"},
        # a seat's feeds and the process's are bounded (docs/security.md, "Bounds")
        ("get", "/api/v1/battles/{battle_id}/feed"): {"401", "403", "404", "413", "422", "429", "503"},
        ("put", "/api/v1/battles/{battle_id}/notifications"): SEAT_BOUNDED,
        ("post", "/api/v1/battles/{battle_id}/notifications/test"): SEAT_BOUNDED,
        ("get", "/api/v1/battles/{battle_id}/export"): {"401", "403", "404", "413", "422"},
        ("get", "/api/v1/schemas/battle-file"): {"413", "422"},
        ("post", "/api/v1/battles/import"): {"413", "422", "429"},
        ("post", "/api/v1/battles/{battle_id}/fork"): {"401", "403", "404", "413", "422", "429"},
        ("get", "/api/v1/ships/schema"): {"413", "422"},
        ("get", "/api/v1/ships"): {"403", "413", "422"},
        ("post", "/api/v1/ships"): {"401", "403", "413", "422"},
        ("post", "/api/v1/battles/{battle_id}/ships/{ship}/save"): {"401", "403", "404", "413", "422"},
        ("get", "/api/v1/ships/{slug}"): {"403", "404", "413", "422"},
        ("delete", "/api/v1/ships/{slug}"): {"401", "403", "404", "413", "422"},
        ("patch", "/api/v1/ships/{slug}"): {"401", "403", "404", "413", "422"},
    }
    for (method, path), codes in expected.items():
        responses = doc["paths"][path][method]["responses"]
        errors = {c for c in responses if c.startswith(("4", "5"))}
        assert errors == codes, (method, path, errors)
        for code in codes:
            schema = responses[code]["content"]["application/json"]["schema"]
            assert schema == {"$ref": "#/components/schemas/ErrorResponse"}, (path, code)
        if "401" in codes:
            assert "WWW-Authenticate" in responses["401"]["headers"]
    assert "HTTPValidationError" not in doc["components"]["schemas"]  # FastAPI's other 422 shape
