"""The profile's pages, on SQLite and PostgreSQL: create (the form the passkey script drives),
sign-in (passkey button; a recovery code by a plain form), sign-out, My battles with whose move it
is (GEN-01) and the referee's saved ships, the devices list with removing a passkey (asked first),
and a fresh set of recovery codes shown once."""

from __future__ import annotations

import re
from typing import Any

from tests.helpers import set_table, simple_ship
from tests.soft_passkey import SoftPasskey
from tests.web.test_identity_api import ORIGIN, app, device, make_profile  # noqa: F401 (the app fixture)
from tests.web.test_pages import csrf


def battle_cards(html: str) -> dict[str, str]:
    found = re.findall(
        r'<a class="card[^"]*" href="/battles/[0-9a-f]+"[^>]* data-battle="([0-9a-f]+)">(.*?)</a>', html, re.S
    )
    return {bid: " ".join(re.sub(r"<[^>]+>", " ", body).split()) for bid, body in found}


async def test_create_and_signin_pages_offer_the_passkey_and_the_code(app: Any) -> None:  # noqa: F811
    async with device(app) as c:
        new = await c.get("/profile/new")
        assert new.status_code == 200 and new.headers["cache-control"] == "no-store"
        assert 'data-passkey="register"' in new.text and 'name="name"' in new.text
        assert '<script src="/static/js/passkeys.js"></script>' in new.text
        assert re.search(r'<section id="recovery-codes"[^>]* hidden', new.text)  # filled once made
        signin = await c.get("/signin")
        assert 'data-passkey="signin"' in signin.text and 'action="/signin/recovery"' in signin.text
        assert (await c.get("/me", follow_redirects=False)).headers["location"] == "/signin"
        home = await c.get("/")
        assert '<a class="site-profile" href="/me">My battles</a>' in home.text
        await make_profile(c)
        assert (await c.get("/profile/new", follow_redirects=False)).headers["location"] == "/me"


async def test_GEN_01_my_battles_and_the_referees_ships_on_another_device(app: Any) -> None:  # noqa: F811
    async with device(app) as laptop, device(app) as phone:
        ships = {"hawk": (simple_ship("Hawk"), "ann"), "crow": (simple_ship("Crow"), "bob")}
        fight = await set_table(laptop, ships=ships, options={})
        saved = await laptop.post(
            "/api/v1/ships", json={"definition": simple_ship("Lancer")}, headers=fight.auth("ref")
        )
        assert saved.status_code == 201, saved.text
        slug = saved.json()["slug"]
        await laptop.get(f"/join/{fight.tokens['ref']}")
        made, _ = await make_profile(laptop, "Rita")

        page = await phone.get("/signin")
        bad = await phone.post("/signin/recovery", data={"csrf_token": csrf(page.text), "code": "nope"})
        assert bad.status_code == 303 and bad.headers["location"] == "/signin"
        assert "a recovery code is 16 letters and digits" in (await phone.get("/signin")).text
        page = await phone.get("/signin")
        forged = await phone.post(
            "/signin/recovery", data={"csrf_token": "x", "code": made["recovery_codes"][0]}
        )
        assert forged.status_code == 303 and "starboard_profile" not in phone.cookies  # no CSRF: nothing
        signed = await phone.post(
            "/signin/recovery", data={"csrf_token": csrf(page.text), "code": made["recovery_codes"][0]}
        )
        assert signed.status_code == 303 and signed.headers["location"] == "/me/devices"
        devices = await phone.get("/me/devices")
        assert "Signed in with a recovery code (9 left)" in devices.text
        assert "Laptop" in devices.text and 'data-passkey="register"' in devices.text

        mine = await phone.get("/me")
        assert "Signed in as <strong data-profile-name>Rita</strong>" in mine.text
        cards = battle_cards(mine.text)
        # GEN-01: the step waits on the commanders (Ann and Bob), not on the referee
        assert "You referee as Referee" in cards[fight.battle_id] and "Waiting on" in cards[fight.battle_id]
        assert "Your move" not in cards[fight.battle_id]
        assert f'<li data-slug="{slug}">Lancer' in mine.text  # the ship saved in Rita's battle is hers
        # a battle Rita creates on the laptop later is on the phone's home page at once
        other = await set_table(laptop, ships={}, options={})
        asked = await laptop.get(f"/join/{other.tokens['ref']}")
        await laptop.post(
            "/join", data={"csrf_token": csrf(asked.text), "token": other.tokens["ref"], "confirm": "yes"}
        )
        assert f'href="/battles/{other.battle_id}"' in (await phone.get("/")).text
        dashboard = await phone.get(f"/battles/{fight.battle_id}")
        assert dashboard.status_code == 200
        assert f'action="/battles/{fight.battle_id}/library/{slug}/delete"' in dashboard.text


async def test_removing_a_device_is_asked_first_and_signs_it_out(app: Any) -> None:  # noqa: F811
    async with device(app) as laptop, device(app) as phone:
        made, _ = await make_profile(laptop)
        page = await phone.get("/signin")
        await phone.post(
            "/signin/recovery", data={"csrf_token": csrf(page.text), "code": made["recovery_codes"][1]}
        )
        phone_key = SoftPasskey(ORIGIN)
        begun = (await phone.post("/api/v1/profiles/passkeys/register/options", json={})).json()
        await phone.post(
            "/api/v1/profiles/passkeys/register/verify",
            json={
                "ceremony": begun["ceremony"],
                "credential": phone_key.create(begun["publicKey"]),
                "label": "Phone",
            },
        )
        devices = await phone.get("/me/devices")
        ids = dict(
            (label, pid)
            for pid, label in re.findall(
                r'data-passkey-id="([0-9a-f]+)">\s*<span><strong>([^<]+)</strong>', devices.text
            )
        )
        assert set(ids) == {"Laptop", "Phone"}
        asked = await phone.post(
            f"/me/devices/{ids['Laptop']}/remove", data={"csrf_token": csrf(devices.text)}
        )
        assert asked.status_code == 200 and "Remove the passkey “Laptop”?" in asked.text
        done = await phone.post(
            f"/me/devices/{ids['Laptop']}/remove", data={"csrf_token": csrf(devices.text), "confirm": "yes"}
        )
        assert done.status_code == 303
        after = await phone.get("/me/devices")
        assert "Removed the passkey “Laptop”." in after.text and "data-passkey-id" in after.text
        assert ids["Laptop"] not in after.text
        assert 'action="/me/devices/' not in after.text  # the only passkey left has no Remove button
        assert (await laptop.get("/me", follow_redirects=False)).headers["location"] == "/signin"


async def test_signout_forgets_the_seats_and_new_codes_are_shown_once(app: Any) -> None:  # noqa: F811
    async with device(app) as c:
        fight = await set_table(c, ships={"hawk": (simple_ship("Hawk"), "ann")}, options={})
        await c.get(f"/join/{fight.tokens['ann']}")
        made, _ = await make_profile(c)
        devices = await c.get("/me/devices")
        fresh = await c.post("/me/recovery-codes", data={"csrf_token": csrf(devices.text)})
        codes = re.findall(r"<li><code>([A-Z0-9-]+)</code></li>", fresh.text)
        assert len(codes) == 10 and not set(codes) & set(made["recovery_codes"])
        assert fresh.headers["cache-control"] == "no-store"
        again = await c.get("/me/devices")
        assert not re.findall(r"<li><code>", again.text) and "<span data-codes-left>10</span>" in again.text

        home = await c.get("/")
        assert fight.battle_id in home.text
        me = await c.get("/me")
        out = await c.post("/signout", data={"csrf_token": csrf(me.text)})
        assert out.status_code == 303 and out.headers["location"] == "/"
        assert "starboard_profile" not in c.cookies
        home = await c.get("/")
        assert "Signed out on this device" in home.text and f"/battles/{fight.battle_id}" not in home.text
        assert (await c.get("/me", follow_redirects=False)).headers["location"] == "/signin"
        # the profile kept the seat: a code from the new set brings it back
        page = await c.get("/signin")
        await c.post("/signin/recovery", data={"csrf_token": csrf(page.text), "code": codes[0]})
        assert fight.battle_id in battle_cards((await c.get("/me")).text)
        old = await c.post("/api/v1/profiles/recovery", json={"code": made["recovery_codes"][2]})
        assert old.status_code == 403  # the earlier set stopped working


async def test_a_shared_browsers_seats_join_the_profile_only_when_asked(app: Any) -> None:  # noqa: F811
    async with device(app) as laptop, device(app) as shared:
        fight = await set_table(laptop, ships={"hawk": (simple_ship("Hawk"), "ann")}, options={})
        made, _ = await make_profile(laptop)
        await shared.get(f"/join/{fight.tokens['bob']}")  # someone played Bob on this computer
        page = await shared.get("/signin")
        await shared.post(
            "/signin/recovery", data={"csrf_token": csrf(page.text), "code": made["recovery_codes"][0]}
        )
        assert (await shared.get("/api/v1/me")).json()["battles"] == []  # Bob's seat is not taken along
        mine = await shared.get("/me")
        assert "Seats this browser holds outside your profile" in mine.text and "bob (player)" in mine.text
        kept = await shared.post("/me/keep-seats", data={"csrf_token": csrf(mine.text)})
        assert kept.status_code == 303
        after = await shared.get("/me")
        assert "Your profile keeps 1 more seat." in after.text and "outside your profile" not in after.text
        battles = (await laptop.get("/api/v1/me")).json()["battles"]
        assert [(b["battle_id"], b["seat_name"]) for b in battles] == [(fight.battle_id, "bob")]
