"""Profiles over REST, on SQLite and PostgreSQL: the WebAuthn ceremonies as JSON (a software
authenticator answers them), recovery-code sign-in, and GET /api/v1/me listing each battle the
profile holds a seat in with whose move it is (GEN-01). Another device brings every seat; a seat
whose link the referee rotated is no longer brought, listed or usable. Bad input is a 422 naming
the field and changes nothing; the profile cookie is signed, HttpOnly and SameSite=Lax."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from app.main import create_app
from app.services.table import pings
from tests.conftest import settings_for
from tests.helpers import act, set_table, simple_ship
from tests.soft_passkey import SoftPasskey
from tests.web.test_pages import csrf

ORIGIN = "http://localhost"


@pytest.fixture
async def app(db_url: str) -> AsyncIterator[Any]:
    """The app served as http://localhost (the passkeys' RP id, WEBAUTHN_RP_ID's default)."""
    application = create_app(settings_for(db_url))
    async with application.router.lifespan_context(application):
        yield application


def device(app: Any) -> httpx.AsyncClient:
    """A browser of its own (its own cookies) on the same app."""
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=ORIGIN)


async def make_profile(c: httpx.AsyncClient, name: str = "Ann") -> tuple[dict[str, Any], SoftPasskey]:
    key = SoftPasskey(ORIGIN)
    begun = await c.post("/api/v1/profiles/passkeys/register/options", json={"name": name})
    assert begun.status_code == 200, begun.text
    options = begun.json()["publicKey"]
    assert (
        options["rp"]["id"] == "localhost" and options["authenticatorSelection"]["residentKey"] == "required"
    )
    done = await c.post(
        "/api/v1/profiles/passkeys/register/verify",
        json={"ceremony": begun.json()["ceremony"], "credential": key.create(options), "label": "Laptop"},
    )
    assert done.status_code == 201, done.text
    return done.json(), key


async def passkey_signin(c: httpx.AsyncClient, key: SoftPasskey) -> httpx.Response:
    begun = (await c.post("/api/v1/profiles/passkeys/signin/options")).json()
    return await c.post(
        "/api/v1/profiles/passkeys/signin/verify",
        json={"ceremony": begun["ceremony"], "credential": key.get(begun["publicKey"])},
    )


async def test_GEN_01_another_device_brings_every_seat_until_a_link_is_rotated(app: Any) -> None:
    async with device(app) as laptop, device(app) as phone:
        ships = {"hawk": (simple_ship("Hawk"), "ann"), "crow": (simple_ship("Crow"), "bob")}
        fight = await set_table(laptop, ships=ships, options={})
        other = await set_table(laptop, ships={"kite": (simple_ship("Kite"), "bob")}, options={})
        assert (
            await laptop.get(f"/join/{fight.tokens['ann']}")
        ).status_code == 303  # played without a profile
        made, _ = await make_profile(laptop)
        assert len(made["recovery_codes"]) == 10 and made["profile"]["name"] == "Ann"
        cookie = laptop.cookies["starboard_profile"]
        # the laptop's seat became the profile's; a seat taken while signed in is kept too
        asked = await laptop.get(f"/join/{other.tokens['ref']}")
        assert asked.status_code == 200  # a seated browser is asked before it takes another seat…
        await laptop.post(
            "/join", data={"csrf_token": csrf(asked.text), "token": other.tokens["ref"], "confirm": "yes"}
        )
        me = (await laptop.get("/api/v1/me")).json()
        mine = {b["battle_id"]: b for b in me["battles"]}
        assert set(mine) == {fight.battle_id, other.battle_id}
        # GEN-01: the step waits on every commander: Ann and Bob in the fight, Bob in the other
        assert mine[fight.battle_id]["your_move"] is True and mine[fight.battle_id]["role"] == "player"
        assert sorted(mine[fight.battle_id]["waiting_on"]) == ["ann", "bob"]
        assert mine[other.battle_id]["your_move"] is False and mine[other.battle_id]["waiting_on"] == ["bob"]
        assert [k["label"] for k in me["passkeys"]] == ["Laptop"] and me["passkeys"][0]["this_device"]
        assert me["recovery_codes_left"] == 10 and cookie

        # another device: a recovery code brings every seat, and the seat's page opens there
        signed = await phone.post("/api/v1/profiles/recovery", json={"code": made["recovery_codes"][0]})
        assert signed.status_code == 200, signed.text
        there = (await phone.get("/api/v1/me")).json()
        assert {b["battle_id"] for b in there["battles"]} == {fight.battle_id, other.battle_id}
        assert there["recovery_codes_left"] == 9
        page = await phone.get(f"/battles/{fight.battle_id}")
        assert page.status_code == 200 and "ann" in page.text
        assert (await act(laptop, fight, "ann", "step.ready", {})).status_code == 200
        moved = {b["battle_id"]: b for b in (await phone.get("/api/v1/me")).json()["battles"]}
        assert moved[fight.battle_id]["your_move"] is False and moved[fight.battle_id]["waiting_on"] == [
            "bob"
        ]

        # the referee gives Ann's seat a new link: the profile's memory of it grants nothing
        rotated = await laptop.post(
            f"/api/v1/battles/{fight.battle_id}/participants/{fight.ids['ann']}/token",
            headers=fight.auth("ref"),
        )
        assert rotated.status_code == 200, rotated.text
        left = (await phone.get("/api/v1/me")).json()["battles"]
        assert [b["battle_id"] for b in left] == [other.battle_id]
        refused = await phone.get(f"/battles/{fight.battle_id}", follow_redirects=True)
        assert "the referee gave this seat a new link" in refused.text
        async with device(app) as tablet:  # a third device signing in is not seated there either
            assert (
                await tablet.post("/api/v1/profiles/recovery", json={"code": made["recovery_codes"][1]})
            ).status_code == 200
            assert [b["battle_id"] for b in (await tablet.get("/api/v1/me")).json()["battles"]] == [
                other.battle_id
            ]
            no_seat = await tablet.get(f"/battles/{fight.battle_id}", follow_redirects=True)
            assert "the referee gave this seat a new link" not in no_seat.text  # never seated there
            assert "join this battle first" in no_seat.text


async def test_passkey_signin_signout_and_removing_a_device(app: Any) -> None:
    async with device(app) as laptop, device(app) as phone:
        made, laptop_key = await make_profile(laptop)
        set_cookie = laptop.cookies.jar
        raw = next(c for c in set_cookie if c.name == "starboard_profile")
        assert (
            raw.has_nonstandard_attr("HttpOnly") and raw.get_nonstandard_attr("SameSite", "").lower() == "lax"
        )
        out = await laptop.post("/api/v1/me/signout")
        assert out.status_code == 200 and "starboard_profile" not in laptop.cookies
        assert (await laptop.get("/api/v1/me")).status_code == 401
        signed = await passkey_signin(laptop, laptop_key)
        assert signed.status_code == 200 and signed.json()["profile"]["id"] == made["profile"]["id"]
        laptop_me = (await laptop.get("/api/v1/me")).json()
        laptop_passkey = laptop_me["passkeys"][0]["id"]

        # the phone signs in with a code, adds its own passkey, and removes the laptop's
        assert (
            await phone.post("/api/v1/profiles/recovery", json={"code": made["recovery_codes"][5]})
        ).status_code == 200
        phone_key = SoftPasskey(ORIGIN)
        begun = (await phone.post("/api/v1/profiles/passkeys/register/options", json={})).json()
        added = await phone.post(
            "/api/v1/profiles/passkeys/register/verify",
            json={
                "ceremony": begun["ceremony"],
                "credential": phone_key.create(begun["publicKey"]),
                "label": "Phone",
            },
        )
        assert added.status_code == 201 and added.json()["recovery_codes"] is None
        gone = await phone.delete(f"/api/v1/me/passkeys/{laptop_passkey}")
        assert gone.status_code == 200, gone.text
        assert [k["label"] for k in (await phone.get("/api/v1/me")).json()["passkeys"]] == ["Phone"]
        assert (await laptop.get("/api/v1/me")).status_code == 401  # its passkey is gone: signed out
        assert (await passkey_signin(laptop, laptop_key)).status_code == 422
        last = (await phone.get("/api/v1/me")).json()["passkeys"][0]["id"]
        only = await phone.delete(f"/api/v1/me/passkeys/{last}")
        assert only.status_code == 422 and only.json()["detail"]["field"] == "passkey"
        assert (await passkey_signin(phone, phone_key)).status_code == 200


async def test_bad_input_is_422_naming_the_field_and_changes_nothing(app: Any) -> None:
    async with device(app) as c:
        made, key = await make_profile(c)
        codes = made["recovery_codes"]
        cases = [
            ("/api/v1/profiles/passkeys/register/options", {"name": ""}, "name"),
            ("/api/v1/profiles/passkeys/register/options", {"name": "Ann", "extra": 1}, "extra"),
            ("/api/v1/profiles/passkeys/register/verify", {"credential": {}}, "ceremony"),
            ("/api/v1/profiles/passkeys/register/verify", {"ceremony": "x", "credential": {}}, "credential"),
            (
                "/api/v1/profiles/passkeys/signin/verify",
                {"ceremony": "nope", "credential": key.get({"challenge": "AA"})},
                "ceremony",
            ),
            ("/api/v1/profiles/recovery", {"code": "short"}, "code"),
            ("/api/v1/profiles/recovery", {"code": 12}, "code"),
        ]
        for path, body, field in cases:
            r = await c.post(path, json=body)
            assert r.status_code == 422, (path, body, r.text)
            assert r.json()["detail"]["field"] == field, (path, r.json())
        begun = (await c.post("/api/v1/profiles/passkeys/signin/options")).json()
        forged = key.get(begun["publicKey"])
        forged["response"]["signature"] = forged["response"]["signature"][:-4] + "AAAA"
        r = await c.post(
            "/api/v1/profiles/passkeys/signin/verify",
            json={"ceremony": begun["ceremony"], "credential": forged},
        )
        assert r.status_code == 422 and r.json()["detail"]["field"] == "credential"
        garbage: list[dict[str, Any]] = [
            {"id": "x", "response": {}},
            {"id": "x", "rawId": "!!", "type": "public-key", "response": {"clientDataJSON": "e30"}},
            {
                "id": "x",
                "rawId": "eA",
                "type": "public-key",
                "response": {"attestationObject": "oA", "clientDataJSON": "AA"},
            },
        ]
        for credential in garbage:  # a live ceremony, answered with junk: 422, never a fault
            begun = (await c.post("/api/v1/profiles/passkeys/register/options", json={})).json()
            r = await c.post(
                "/api/v1/profiles/passkeys/register/verify",
                json={"ceremony": begun["ceremony"], "credential": credential},
            )
            assert r.status_code == 422 and r.json()["detail"]["field"] == "credential", r.text
        me = (await c.get("/api/v1/me")).json()
        assert me["recovery_codes_left"] == 10 and len(me["passkeys"]) == 1  # nothing changed
        assert codes  # and every code still works once
        # a used code is refused without a 422: it was well formed
        async with device(app) as other:
            assert (await other.post("/api/v1/profiles/recovery", json={"code": codes[0]})).status_code == 200
            again = await other.post("/api/v1/profiles/recovery", json={"code": codes[0]})
            assert again.status_code == 403 and again.json()["detail"]["field"] == "code"


async def test_the_profile_cookie_is_signed_and_the_schema_lists_the_routes(app: Any) -> None:
    async with device(app) as c:
        await make_profile(c)
        good = c.cookies["starboard_profile"]
        c.cookies.set("starboard_profile", good[:-3] + ("AAA" if not good.endswith("AAA") else "BBB"))
        assert (await c.get("/api/v1/me")).status_code == 401
        schema = (await c.get("/openapi.json")).json()["paths"]
        for path in (
            "/api/v1/me",
            "/api/v1/profiles/passkeys/register/options",
            "/api/v1/profiles/passkeys/register/verify",
            "/api/v1/profiles/passkeys/signin/options",
            "/api/v1/profiles/passkeys/signin/verify",
            "/api/v1/profiles/recovery",
        ):
            assert path in schema, path
        cross = await c.post(
            "/api/v1/profiles/passkeys/signin/options", headers={"Origin": "http://evil.example"}
        )
        assert cross.status_code == 403


async def test_a_profiles_pings_apply_to_every_battle_it_holds_and_a_rotated_seat_keeps_none(
    app: Any,
) -> None:
    """Pings chosen once — on the profile, or from any battle a profile seat sits in — are the
    choice every battle of that player reads; a seat the referee gave a new link is back to its own
    (the defaults). Bad input names the field and changes nothing."""
    async with device(app) as laptop:
        ships = {"hawk": (simple_ship("Hawk"), "ann"), "crow": (simple_ship("Crow"), "bob")}
        first = await set_table(laptop, ships=ships, options={})
        second = await set_table(laptop, ships=ships, options={})
        await laptop.get(f"/join/{first.tokens['ann']}")
        await make_profile(laptop)
        asked = await laptop.get(f"/join/{second.tokens['ann']}")
        await laptop.post(
            "/join", data={"csrf_token": csrf(asked.text), "token": second.tokens["ann"], "confirm": "yes"}
        )
        everything_on = {"your_move": True, "deadline": True, "browser": True, "webhook": True}
        assert (await laptop.get("/api/v1/me/pings")).json() == everything_on
        quiet = {"your_move": False, "deadline": True, "browser": True, "webhook": False}
        put = await laptop.put("/api/v1/me/pings", json=quiet, headers={"Origin": ORIGIN})
        assert put.status_code == 200 and put.json() == quiet, put.text
        for table in (first, second):  # each battle's own door reads the profile's choice
            mine = await laptop.get(f"/api/v1/battles/{table.battle_id}/pings", headers=table.auth("ann"))
            assert mine.json() == quiet, mine.text
        # chosen from one battle's door, it is the profile's choice for the other battle too
        from_battle = {**quiet, "deadline": False}
        r = await laptop.put(
            f"/api/v1/battles/{first.battle_id}/pings", json=from_battle, headers=first.auth("ann")
        )
        assert r.status_code == 200, r.text
        assert (await laptop.get("/api/v1/me/pings")).json() == from_battle
        mine = await laptop.get(f"/api/v1/battles/{second.battle_id}/pings", headers=second.auth("ann"))
        assert mine.json() == from_battle
        # the notifier reads every seat of a battle at once: Ann's is her profile's choice
        async with app.state.platform.db.reader() as session:
            wanted = await pings.for_battle(session, second.battle_id)
        assert wanted[second.ids["ann"]].model_dump() == from_battle and second.ids["bob"] not in wanted
        bad = await laptop.put(
            "/api/v1/me/pings", json={**quiet, "deadline": "sometimes"}, headers={"Origin": ORIGIN}
        )
        assert bad.status_code == 422 and "deadline" in bad.text, bad.text
        assert (await laptop.get("/api/v1/me/pings")).json() == from_battle
        # a new link for the seat takes it, and the profile's pings, away from the profile
        rotated = await laptop.post(
            f"/api/v1/battles/{second.battle_id}/participants/{second.ids['ann']}/token",
            headers=second.auth("ref"),
        )
        assert rotated.status_code == 200, rotated.text
        token = rotated.json()["token"]
        mine = await laptop.get(
            f"/api/v1/battles/{second.battle_id}/pings", headers={"Authorization": f"Bearer {token}"}
        )
        assert mine.json() == everything_on


async def test_the_profile_page_saves_its_pings(app: Any) -> None:
    async with device(app) as laptop:
        await make_profile(laptop)
        page = await laptop.get("/me")
        assert 'id="my-pings"' in page.text and 'name="your_move" checked' in page.text
        saved = await laptop.post(
            "/me/pings", data={"csrf_token": csrf(page.text), "deadline": "on", "browser": "on"}
        )
        assert saved.status_code == 303
        page = await laptop.get("/me")
        assert "Pings saved: they apply to every battle of yours." in page.text
        assert 'name="your_move" >' in page.text and 'name="deadline" checked' in page.text
        assert (await laptop.get("/api/v1/me/pings")).json() == {
            "your_move": False,
            "deadline": True,
            "browser": True,
            "webhook": False,
        }
