"""A three-battle High Guard campaign end to end through REST, as a bot referee would run it:
ships carried from battle to battle (TR-19 damage kept), repaired between battles by TR-22's
standard check (GEN-05: 2D + Crew Skill DM, 8+), one destroyed (TR-17 ruling) and retired; the
file exported and imported, the campaign rewound; bad input refused with 422 naming the field and
nothing changed; a secret roster never leaks."""

from __future__ import annotations

import copy
import json
import uuid
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import select

from app.models import CampaignEvent
from tests.helpers import eventually, ship_def, simple_ship
from tests.web.test_battle_file import cli

API = "/api/v1"


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def ok(r: httpx.Response, status: int = 200) -> Any:
    assert r.status_code == status, r.text
    return r.json()


async def battle_act(
    c: httpx.AsyncClient, battle: str, token: str, type_: str, payload: dict[str, Any]
) -> Any:
    body = {"type": type_, "payload": payload, "action_id": uuid.uuid4().hex}
    return await ok(await c.post(f"{API}/battles/{battle}/actions", json=body, headers=bearer(token)))


async def traveller_campaign(c: httpx.AsyncClient, **options: bool) -> dict[str, Any]:
    made = await ok(
        await c.post(
            f"{API}/campaigns",
            json={
                "name": "Spinward raid",
                "system": "traveller",
                "sides": ["Imperial", "Rebel"],
                "options": options,
            },
        ),
        201,
    )
    cid, ref = made["campaign_id"], made["referee"]["token"]
    ann = await ok(
        await c.post(
            f"{API}/campaigns/{cid}/players", json={"name": "Ann", "side": "Imperial"}, headers=bearer(ref)
        ),
        201,
    )
    bob = await ok(
        await c.post(
            f"{API}/campaigns/{cid}/players", json={"name": "Bob", "side": "Rebel"}, headers=bearer(ref)
        ),
        201,
    )
    ships = {}
    for label, body in {
        "arbellatra": {
            "side": "Imperial",
            "player": ann["seat"],
            "library": "tr-arbellatra-cruiser",
            "points": 300,
        },
        "dauntless": {"side": "Rebel", "player": bob["seat"], "library": "tr-dauntless-battlecruiser"},
        "vigilant": {
            "side": "Rebel",
            "player": bob["seat"],
            "definition": {**ship_def("tr-vigilant-escort"), "points": 120},
        },
    }.items():
        ships[label] = (
            await ok(await c.post(f"{API}/campaigns/{cid}/ships", json=body, headers=bearer(ref)), 201)
        )["ship"]
    return {"id": cid, "ref": ref, "ann": ann["token"], "bob": bob["token"], "ships": ships}


async def read(c: httpx.AsyncClient, camp: dict[str, Any], who: str = "ref", **query: Any) -> Any:
    return await ok(await c.get(f"{API}/campaigns/{camp['id']}", params=query, headers=bearer(camp[who])))


def ship_of(view: dict[str, Any], ship_id: str) -> dict[str, Any]:
    return next(s for s in view["ships"] if s["id"] == ship_id)


def section(ship: dict[str, Any], name: str) -> dict[str, Any]:
    return next(s for s in ship["parts"]["hg_ship"]["sections"] if s["name"] == name)


async def fight(
    c: httpx.AsyncClient, camp: dict[str, Any], name: str, picks: list[str], plays
) -> dict[str, Any]:
    started = await ok(
        await c.post(
            f"{API}/campaigns/{camp['id']}/battles",
            json={"name": name, "ships": [camp["ships"][p] for p in picks]},
            headers=bearer(camp["ref"]),
        ),
        201,
    )
    battle, ref = started["battle_id"], started["seats"][0]["token"]
    assert started["seats"][0]["role"] == "referee"
    ids = {p: started["ships"][camp["ships"][p]] for p in picks}
    for type_, payload in plays(ids):
        await battle_act(c, battle, ref, type_, payload)
    await battle_act(c, battle, ref, "battle.end", {"reason": "the raid is over"})

    async def recorded() -> bool:
        view = await read(c, camp)
        return any(b["id"] == battle and b["status"] == "recorded" for b in view["battles"])

    await eventually(recorded, what="the battle's end written back to the campaign")
    return {"battle": battle, "ids": ids}


async def test_three_battle_campaign_carries_repairs_destroys_and_retires(
    client: httpx.AsyncClient, tmp_path: Path
) -> None:
    c = client
    camp = await traveller_campaign(c)
    view = await read(c, camp)
    assert [s["points"] for s in view["ships"]] == [300, None, 120]
    engineering_before = section(ship_of(view, camp["ships"]["arbellatra"]), "Engineering")

    # Battle 1: Dauntless puts 10 Hull into Arbellatra's Engineering and an M-Drive hit (TR-19:
    # −1 Thrust until repaired).
    b1 = await fight(
        c,
        camp,
        "Battle of Regina",
        ["arbellatra", "dauntless"],
        lambda ids: [
            (
                "traveller.entered_hit",
                {
                    "target": ids["arbellatra"],
                    "section": "Engineering",
                    "hull_damage": 10,
                    "system": "m_drive",
                    "source": ids["dauntless"],
                },
            )
        ],
    )
    view = await read(c, camp)
    arb = ship_of(view, camp["ships"]["arbellatra"])
    hg = arb["parts"]["hg_ship"]
    assert (
        section(arb, "Engineering")["hull"] == engineering_before["hull_max"] - 10
    )  # kept (TR-22: Hull not repaired)
    assert hg["systems"]["m_drive"] == 1 and hg["thrust"] == hg["thrust_max"] - 1  # TR-19 kept
    assert hg["round"]["turn"] == 0 and hg["ranges"] == {}  # the battle's rounds forgotten
    assert arb["history"][0]["battle"] == b1["battle"] and arb["history"][0]["taken"] > 0
    assert ship_of(view, camp["ships"]["dauntless"])["history"][0]["dealt"] == arb["history"][0]["taken"]
    assert arb["status"] == "ready"

    # Between battles: TR-22 repair of the M-Drive. Crew Skill 2 gives DM +2 (GEN-05): 2D 2+3 = 7 fails…
    url = f"{API}/campaigns/{camp['id']}/ships/{camp['ships']['arbellatra']}/repair"
    body = {"part": "hg_ship", "section": "Engineering", "system": "m_drive"}
    failed = await ok(await c.post(url, json={**body, "dice": [2, 3]}, headers=bearer(camp["ref"])))
    assert "7 vs 8+ → failure" in failed["text"]
    assert (
        ship_of(await read(c, camp), camp["ships"]["arbellatra"])["parts"]["hg_ship"]["systems"]["m_drive"]
        == 1
    )
    # … and 3+3 = 8 succeeds: one hit off, the Thrust it took given back.
    done = await ok(await c.post(url, json={**body, "dice": [3, 3]}, headers=bearer(camp["ref"])))
    assert "8 vs 8+ → success" in done["text"]
    hg = ship_of(await read(c, camp), camp["ships"]["arbellatra"])["parts"]["hg_ship"]
    assert hg["systems"]["m_drive"] == 0 and hg["thrust"] == hg["thrust_max"]
    # Hull is mended only by a referee's ruling, with its reason.
    seq_before = (await read(c, camp))["seq"]
    r = await c.post(
        f"{API}/campaigns/{camp['id']}/ships/{camp['ships']['arbellatra']}/ruling",
        json={"reason": "a month in the yards at Regina", "restore": True},
        headers=bearer(camp["ref"]),
    )
    assert r.status_code == 200, r.text
    view = await read(c, camp)
    assert (
        section(ship_of(view, camp["ships"]["arbellatra"]), "Engineering")["hull"]
        == engineering_before["hull_max"]
    )
    assert view["seq"] == seq_before + 1

    # Battle 2: the Vigilant is ruled destroyed (TR-17), then struck off the roster.
    b2 = await fight(
        c,
        camp,
        "Second Regina",
        ["arbellatra", "vigilant"],
        lambda ids: [("traveller.rule_ship", {"ship": ids["vigilant"], "outcome": "destroyed"})],
    )
    view = await read(c, camp)
    vig = ship_of(view, camp["ships"]["vigilant"])
    assert vig["status"] == "destroyed" and vig["history"][0]["destroyed"] is True
    r = await c.post(
        f"{API}/campaigns/{camp['id']}/battles",
        json={"name": "Too soon", "ships": [camp["ships"]["vigilant"]]},
        headers=bearer(camp["ref"]),
    )
    assert r.status_code == 422 and r.json()["detail"]["field"] == "ships.0"
    await ok(
        await c.post(
            f"{API}/campaigns/{camp['id']}/ships/{camp['ships']['vigilant']}/retire",
            json={"reason": "lost with all hands"},
            headers=bearer(camp["ref"]),
        )
    )
    assert ship_of(await read(c, camp), camp["ships"]["vigilant"])["status"] == "retired"

    # Battle 3: Arbellatra, as the fleet keeps it now, against Dauntless.
    b3 = await fight(c, camp, "Third Regina", ["arbellatra", "dauntless"], lambda ids: [])
    view = await read(c, camp)
    arb = ship_of(view, camp["ships"]["arbellatra"])
    assert [h["battle"] for h in arb["history"]][-1] == b3["battle"]
    assert arb["totals"]["battles"] == 3

    # The audit makes each recorded result again from its battle's log: all three agree, until a
    # recorded figure is changed behind the log's back.
    audit_url = f"{API}/campaigns/{camp['id']}/audit"
    audited = await ok(await c.get(audit_url, headers=bearer(camp["ref"])))
    assert audited["ok"] is True and [b["battle"] for b in audited["battles"]] == [
        b1["battle"],
        b2["battle"],
        b3["battle"],
    ]
    assert (await c.get(audit_url, headers=bearer(camp["ann"]))).status_code == 403
    platform = c.app.state.platform  # type: ignore[attr-defined]
    async with platform.db.transaction() as session:
        first = (
            await session.scalars(
                select(CampaignEvent)
                .where(CampaignEvent.campaign_id == camp["id"], CampaignEvent.kind == "battle_recorded")
                .order_by(CampaignEvent.seq)
            )
        ).first()
        fleet_id = next(iter(first.data["ships"]))
        original = copy.deepcopy(first.data)
        forged = copy.deepcopy(first.data)
        forged["ships"][fleet_id]["taken"] += 1
        first.data = forged
    audited = await ok(await c.get(audit_url, headers=bearer(camp["ref"])))
    assert audited["ok"] is False
    assert [(b["battle"], b["matches"], b["differences"]) for b in audited["battles"]] == [
        (b1["battle"], False, [f"ships.{fleet_id}.taken"]),
        (b2["battle"], True, []),
        (b3["battle"], True, []),
    ]
    async with platform.db.transaction() as session:
        row = await session.get(CampaignEvent, first.id)
        row.data = original
    assert (await ok(await c.get(audit_url, headers=bearer(camp["ref"]))))["ok"] is True

    # The log is the campaign: rewinding to before battle 3 forgets it; the file carries it all.
    log = await ok(await c.get(f"{API}/campaigns/{camp['id']}/log", headers=bearer(camp["ref"])))
    started3 = next(e["seq"] for e in log if e["kind"] == "battle_started" and e["battle"] == b3["battle"])
    await ok(
        await c.post(
            f"{API}/campaigns/{camp['id']}/rewind", json={"to": started3 - 1}, headers=bearer(camp["ref"])
        )
    )
    assert ship_of(await read(c, camp), camp["ships"]["arbellatra"])["totals"]["battles"] == 2
    exported = await ok(await c.get(f"{API}/campaigns/{camp['id']}/export", headers=bearer(camp["ref"])))
    assert exported["format"] == "starboard.campaign/1" and len(exported["battles"]) == 3
    # Three battle files are over the REST body limit (MAX_BODY_BYTES, as for a battle file): the
    # service the door calls takes any size.
    too_big = await c.post(f"{API}/campaigns/import", json=exported)
    assert too_big.status_code == 413
    # …so the operator's command line writes and reads it, whatever its size
    url = c.app.state.settings.database_url  # type: ignore[attr-defined]
    written = cli(url, "campaign-export", camp["id"])
    assert written.returncode == 0, written.stderr
    assert json.loads(written.stdout) == exported
    path = tmp_path / "campaign.json"
    path.write_text(written.stdout)
    done = cli(url, "campaign-import", str(path))
    assert done.returncode == 0, done.stderr
    made = json.loads(done.stdout)
    imported = {"campaign_id": made["campaign"], "battles": made["battles"]}
    referee = next(s for s in made["seats"] if s["role"] == "referee")
    copied = await ok(
        await c.get(f"{API}/campaigns/{imported['campaign_id']}", headers=bearer(referee["token"]))
    )
    assert [(s["id"], s["status"], s["totals"]) for s in copied["ships"]] == [
        (s["id"], s["status"], s["totals"]) for s in (await read(c, camp))["ships"]
    ]
    assert all(b["id"] in imported["battles"] for b in copied["battles"])


async def test_bad_input_is_refused_naming_the_field_and_changes_nothing(client: httpx.AsyncClient) -> None:
    c = client
    camp = await traveller_campaign(c)
    before = await read(c, camp)
    cases = [
        ("ships", {"side": "Imperial", "library": "no-such-ship"}, "library"),
        ("ships", {"side": "Nowhere", "library": "tr-arbellatra-cruiser"}, "side"),
        ("ships", {"side": "Imperial", "library": "tr-arbellatra-cruiser", "points": -1}, "points"),
        ("ships", {"side": "Imperial", "definition": simple_ship("Frigate")}, "definition.system"),
        ("players", {"name": "Cy", "side": "Nowhere"}, "side"),
        ("sides", {"side": ""}, "side"),
        ("rewind", {"to": 0}, "to"),
        ("battles", {"name": "x", "ships": ["s99"]}, "ships.0"),
        (
            f"ships/{camp['ships']['arbellatra']}/repair",
            {"part": "hg_ship", "section": "Engineering", "system": "m_drive"},
            "system",
        ),
        (
            f"ships/{camp['ships']['arbellatra']}/ruling",
            {"reason": "x", "values": {"hg_ship.sections.0.hull": -5}},
            None,
        ),
        (f"ships/{camp['ships']['arbellatra']}/retire", {"reason": ""}, "reason"),
    ]
    for path, body, field in cases:
        r = await c.post(f"{API}/campaigns/{camp['id']}/{path}", json=body, headers=bearer(camp["ref"]))
        assert r.status_code == 422, (path, r.text)
        got = r.json()["detail"]["field"]
        assert got is not None and (field is None or got == field), (path, got)
    r = await c.post(f"{API}/campaigns", json={"name": "x", "system": "chess"})
    assert r.status_code == 422 and r.json()["detail"]["field"] == "system"
    r = await c.post(
        f"{API}/campaigns", json={"name": "x", "system": "sfb", "options": {"pain_carries": "yes"}}
    )
    assert r.status_code == 422 and "pain_carries" in r.json()["detail"]["field"]
    # a campaign file without battles comes in through REST; a broken one is refused naming the field
    small = await traveller_campaign(c)
    file = await ok(await c.get(f"{API}/campaigns/{small['id']}/export", headers=bearer(small["ref"])))
    made = await ok(await c.post(f"{API}/campaigns/import", json=file), 201)
    assert made["seq"] == file["log"][-1]["seq"]
    broken = {**file, "log": [*file["log"][:3], {**file["log"][3], "seq": 9}]}
    r = await c.post(f"{API}/campaigns/import", json=broken)
    assert r.status_code == 422 and r.json()["detail"]["field"] == "log.3"
    # a player may read but not change
    r = await c.post(
        f"{API}/campaigns/{camp['id']}/sides", json={"side": "Pirates"}, headers=bearer(camp["ann"])
    )
    assert r.status_code == 403
    assert await read(c, camp) == before


async def test_a_secret_roster_stays_secret_until_its_ships_fight(client: httpx.AsyncClient) -> None:
    c = client
    camp = await traveller_campaign(c, secret_rosters=True)
    ann = await read(c, camp, "ann")
    assert {s["name"] for s in ann["ships"]} == {"Arbellatra"}
    log = await ok(await c.get(f"{API}/campaigns/{camp['id']}/log", headers=bearer(camp["ann"])))
    text = str(ann) + str(log)
    for secret in ("Dauntless", "Vigilant", "120", camp["ships"]["vigilant"]):
        assert secret not in text, secret
    # Export is the referee's alone (it holds every roster).
    r = await c.get(f"{API}/campaigns/{camp['id']}/export", headers=bearer(camp["ann"]))
    assert r.status_code == 403
    # Once the Dauntless fights, Ann knows of it — its name and record, never its parts.
    await fight(c, camp, "First contact", ["arbellatra", "dauntless"], lambda ids: [])
    ann = await read(c, camp, "ann")
    daunt = next(s for s in ann["ships"] if s["name"] == "Dauntless")
    assert "parts" not in daunt and "definition" not in daunt
    assert "Vigilant" not in str(ann) + str(
        await ok(await c.get(f"{API}/campaigns/{camp['id']}/log", headers=bearer(camp["ann"])))
    )
    # Bob sees his own side whole.
    bob = await read(c, camp, "bob")
    assert {s["name"] for s in bob["ships"] if s["own"]} == {"Dauntless", "Vigilant"}
