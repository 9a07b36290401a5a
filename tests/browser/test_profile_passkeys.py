"""A profile in a real browser, with Chromium's virtual authenticator (DevTools WebAuthn domain):
Ann plays from a join link, makes a profile with a passkey and reads her recovery codes once;
signs out and back in with the passkey; on a phone (its own context: a passkey does not travel to
another authenticator here) a recovery code brings her battle, the phone adds its own passkey and
removes the laptop's — which signs the laptop out. WebAuthn needs a secure context and a domain RP
id, so the pages are opened at http://localhost:PORT (WEBAUTHN_RP_ID's default). Every page passes
axe, light and dark, desktop and phone (no critical or serious violation); the phone's pages fit
390 × 844."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from playwright.async_api import Browser, BrowserContext, Page, expect

from tests.browser.conftest import wait_until
from tests.browser.test_accessibility import FAILING, report, scan_sizes
from tests.conftest import ROOT, Server
from tests.helpers import set_table, simple_ship

AUTHENTICATOR = {
    "protocol": "ctap2",
    "transport": "internal",
    "hasResidentKey": True,
    "hasUserVerification": True,
    "isUserVerified": True,
}
WIDER_THAN_THE_WINDOW = """Array.from(document.querySelectorAll('main *'))
  .filter(e => e.getBoundingClientRect().right > window.innerWidth + 1)
  .map(e => e.tagName + ' ' + (e.textContent || '').trim().slice(0, 40))"""


async def with_authenticator(context: BrowserContext, page: Page) -> Any:
    cdp = await context.new_cdp_session(page)
    await cdp.send("WebAuthn.enable")
    added = await cdp.send("WebAuthn.addVirtualAuthenticator", {"options": AUTHENTICATOR})
    return cdp, added["authenticatorId"]


@pytest.mark.browser
async def test_a_profile_follows_the_player_to_another_device(browser: Browser, server: Server) -> None:
    base = server.url.replace("127.0.0.1", "localhost")
    async with httpx.AsyncClient(base_url=server.url) as c:
        ships = {"hawk": (simple_ship("Hawk"), "ann"), "crow": (simple_ship("Crow"), "bob")}
        fight = await set_table(c, ships=ships, options={})
    found: dict[str, list] = {}  # type: ignore[type-arg]
    errors: list[str] = []
    laptop = await browser.new_context(viewport={"width": 1280, "height": 900})
    phone = await browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True)
    try:
        page = await laptop.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        cdp, laptop_authenticator = await with_authenticator(laptop, page)
        await page.goto(f"{base}/join/{fight.tokens['ann']}")  # plays first, with no profile
        await wait_until(page, "document.documentElement.dataset.live === 'connected'")

        await page.goto(f"{base}/profile/new")
        await page.get_by_label("Your name").fill("Ann")
        await page.get_by_label("This device").fill("Laptop")
        await page.get_by_role("button", name="Create my profile with a passkey").click()
        box = page.locator("#recovery-codes")
        await expect(box).to_be_visible()
        codes = await box.locator("[data-codes] code").all_inner_texts()
        assert len(codes) == 10 and all(len(code) == 19 for code in codes)  # ABCD-EFGH-JKMN-PQRS
        held = await cdp.send("WebAuthn.getCredentials", {"authenticatorId": laptop_authenticator})
        assert [c["isResidentCredential"] for c in held["credentials"]] == [True]  # a discoverable passkey
        await scan_sizes(page, "profile made, recovery codes", found)

        await page.get_by_role("link", name="I have kept them — go to My battles").click()
        card = page.locator(f'#my-battles a[data-battle="{fight.battle_id}"]')
        await expect(card).to_contain_text("You play as ann")
        await expect(card).to_contain_text("Your move")  # GEN-01: the step waits on Ann and Bob
        await scan_sizes(page, "my battles", found)

        await page.get_by_role("button", name="Sign out on this device").click()
        await expect(page.locator("#flash")).to_contain_text("Signed out on this device")
        await page.goto(f"{base}/me")
        await expect(page).to_have_url(f"{base}/signin")
        await scan_sizes(page, "sign in", found)
        await page.get_by_role("button", name="Sign in with a passkey").click()
        await expect(page).to_have_url(f"{base}/me")
        await expect(card).to_contain_text("You play as ann")

        # the phone: a recovery code brings the battle, then a passkey of its own
        mobile = await phone.new_page()
        mobile.on("pageerror", lambda e: errors.append(str(e)))
        await with_authenticator(phone, mobile)
        await mobile.goto(f"{base}/signin")
        await mobile.get_by_label("A recovery code").fill(codes[0].lower())
        await mobile.get_by_role("button", name="Sign in with the code").click()
        await expect(mobile).to_have_url(f"{base}/me/devices")
        await expect(mobile.locator("#flash")).to_contain_text("Signed in with a recovery code (9 left)")
        await mobile.get_by_label("This device").fill("Phone")
        await mobile.get_by_role("button", name="Add a passkey on this device").click()
        await expect(mobile.locator("#passkeys li")).to_have_count(2)
        await expect(mobile.locator("#passkeys li", has_text="Phone")).to_contain_text("(this device)")
        assert not await mobile.evaluate(WIDER_THAN_THE_WINDOW)
        await mobile.screenshot(path=str(ROOT / "var" / "profile-devices-phone.png"), full_page=True)
        await scan_sizes(mobile, "devices", found)
        await mobile.get_by_role("button", name="Remove the passkey Laptop").click()
        await mobile.get_by_role("button", name="Yes, remove it").click()
        await expect(mobile.locator("#passkeys li")).to_have_count(1)
        await expect(mobile.locator("#passkeys")).to_contain_text("Phone")

        await mobile.goto(f"{base}/me")
        phone_card = mobile.locator(f'#my-battles a[data-battle="{fight.battle_id}"]')
        await expect(phone_card).to_contain_text("You play as ann")
        assert not await mobile.evaluate(WIDER_THAN_THE_WINDOW)
        await scan_sizes(mobile, "my battles, another device", found)
        await phone_card.click()
        await wait_until(mobile, "document.documentElement.dataset.live === 'connected'")

        # the laptop's passkey was removed: it is signed out, and its passkey no longer signs in
        await page.goto(f"{base}/me")
        await expect(page).to_have_url(f"{base}/signin")
        await page.get_by_role("button", name="Sign in with a passkey").click()
        await expect(page.locator("#flash .flash-error")).to_contain_text("not registered here")
    finally:
        await laptop.close()
        await phone.close()
    assert not errors, errors
    counts, lines = report(found)
    print("\n".join(lines))
    assert not [k for k in counts if k[0] in FAILING], "\n".join(lines)
