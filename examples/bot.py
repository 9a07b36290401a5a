"""A reference Starboard bot: only the documented REST API and the push feed (httpx).

    python examples/bot.py --url http://127.0.0.1:8000 --battle BATTLE --token TOKEN [--hit 10]

It reads the battle once, then follows `GET /api/v1/battles/{id}/feed` (Server-Sent Events) from
that seq. Whenever the battle waits on it (`waiting_on_you` on the newest event, or `your_move` in
the battle it read) it reads the battle and plays one legal move, chosen only among the actions the
battle offers it now (`may_submit`) and the ships each offer names:

- `damage.apply`, once a step: `--hit` points (within the offer's schema) from its first ship still
  fighting on the first enemy ship still fighting that has a damage sheet (SFB, B5 Wars);
- `traveller.barrage`, one a round for each ship the offer names: its first battery that may fire, at
  the first enemy still fighting, with the fewest mounts a barrage may have (ten, or all of the type
  if fewer: TR-05) and the range from the battle's range board; a battery the rules refuse is
  skipped for the next one;
- otherwise `step.ready`, "done with this step" — in Traveller's orders step that commits the
  orders as drafted (the bot drafts none), in the combat step it passes to the next ship.

Enemies are ships on another side (by `side` where both ships have one, else by commander).
Each action carries the seq it was chosen at, so a battle that moved on answers 409 and the bot
waits for the next event; a move the rules refuse (422/403) is said and the bot chooses again.
It plays until the battle ends — the feed's last entry says `finished` and closes — or, with
`--turns N`, until turn N + 1 begins, or until the feed closes (its token stopped working). It
prints one line per action it takes and, at the end, how the battle ended. A server restarting
ends the feed with an `event: restart`: the bot follows again from the last seq it saw.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import uuid
from typing import Any

import httpx

BARRAGE_MOUNTS = 10  # TR-05: at least ten weapons of the type, or all of them if fewer


class Bot:
    def __init__(self, url: str, battle: str, token: str, hit: int = 1, turns: int | None = None) -> None:
        self.http = httpx.AsyncClient(
            base_url=url,
            headers={"Authorization": f"Bearer {token}"},
            timeout=httpx.Timeout(30, read=60),  # the feed sends a keep-alive every 15 s
        )
        self.battle = battle
        self.hit = hit
        self.turns = turns
        self.tried: set[tuple[str, ...]] = set()  # moves made or refused: (step or round, kind, …)
        self.fired: set[tuple[str, str]] = set()  # (round, ship): its barrage this round is fired
        self.done = False
        self.ending = ""

    async def read(self) -> dict[str, Any]:
        r = await self.http.get(f"/api/v1/battles/{self.battle}")
        r.raise_for_status()
        return r.json()

    def over(self, battle: dict[str, Any]) -> bool:
        bar = battle["turn_bar"]
        if battle["status"] == "finished" or bar["finished"]:
            return True
        return self.turns is not None and bar["turn"] > self.turns

    @staticmethod
    def enemies(battle: dict[str, Any]) -> list[dict[str, Any]]:
        """Ships still fighting on another side than every ship this bot commands, by id."""
        ships = battle["state"]["ships"]
        mine = [ships[sid] for sid in battle["me"]["ships"] if sid in ships]
        sides = {s["side"] for s in mine if s["side"]}

        def hostile(ship: dict[str, Any]) -> bool:
            if ship["id"] in battle["me"]["ships"] or ship.get("destroyed"):
                return False
            return (
                ship["side"] not in sides if ship["side"] and sides else ship["owner"] != battle["me"]["id"]
            )

        return [ships[sid] for sid in sorted(ships) if hostile(ships[sid])]

    def choose(self, battle: dict[str, Any]) -> tuple[str, dict[str, Any], tuple[str, ...]] | None:
        """One legal move from what the battle offers now, with the key that marks it tried (None:
        nothing to do)."""
        offers = {o["type"]: o for o in battle["may_submit"]}
        bar = battle["turn_bar"]
        ships = battle["state"]["ships"]
        enemies = self.enemies(battle)
        fighting = [sid for sid in battle["me"]["ships"] if sid in ships and not ships[sid].get("destroyed")]
        if "damage.apply" in offers and fighting:
            key = (bar["clock"], "damage.apply")
            targets = [s for s in enemies if "sheet" in s["parts"]]
            if targets and key not in self.tried:
                limit = offers["damage.apply"]["payload_schema"]["properties"]["amount"].get("maximum")
                amount = min(self.hit, limit) if limit else self.hit
                hit = {
                    "target": targets[0]["id"],
                    "source": fighting[0],
                    "amount": amount,
                    "direction": "fore",
                }
                return "damage.apply", hit, key
        if "traveller.barrage" in offers:
            move = self.barrage(battle, offers["traveller.barrage"], enemies)
            if move is not None:
                return move
        key = (str(battle["seq"]), "step.ready")
        if "step.ready" in offers and key not in self.tried:
            return "step.ready", {}, key
        return None

    def barrage(
        self, battle: dict[str, Any], offer: dict[str, Any], enemies: list[dict[str, Any]]
    ) -> tuple[str, dict[str, Any], tuple[str, ...]] | None:
        """The first barrage not tried this round: a ship the offer names, a battery of it, the first
        enemy on the High Guard board (a capital ship or a flight)."""
        ships = battle["state"]["ships"]
        targets = [s for s in enemies if "hg_ship" in s["parts"] or "flight" in s["parts"]]
        required = offer["payload_schema"].get("required", [])
        turn = str(battle["turn_bar"]["turn"])
        for sid in offer["ships"]:
            if (turn, sid) in self.fired:
                continue
            unit = ships[sid]["parts"].get("hg_ship") or ships[sid]["parts"].get("flight") or {}
            for battery in unit.get("batteries", []):
                key = (turn, "traveller.barrage", sid, battery["id"])
                if not targets or key in self.tried:
                    continue
                target = targets[0]["id"]
                shot = {
                    "ship": sid,
                    "battery": battery["id"],
                    "mounts": min(BARRAGE_MOUNTS, battery["mounts"]),
                    "target": target,
                    "adjacent": "toward fore",  # TR-16: the other half goes toward the fore
                }
                if "range" in required:  # a server without a range board wants the band named
                    band = self.board_band(battle, sid, target)
                    if band is None:
                        continue
                    shot["range"] = band
                return "traveller.barrage", shot, key
        return None

    @staticmethod
    def board_band(battle: dict[str, Any], a: str, b: str) -> str | None:
        """The pair's band on the range board (kept on the ship whose id sorts first), if any."""
        first, second = sorted((a, b))
        parts = battle["state"]["ships"][first]["parts"]
        unit = parts.get("hg_ship") or parts.get("flight") or {}
        return (unit.get("ranges", {}).get(second) or {}).get("band")

    async def play(self) -> None:
        """Read the battle; act while it waits on this bot (until the rules say no more)."""
        while True:
            battle = await self.read()
            if self.over(battle):
                self.done = True
                return
            if not battle["turn_bar"]["your_move"]:
                return
            move = self.choose(battle)
            if move is None:
                return
            kind, payload, key = move
            body = {"type": kind, "payload": payload, "action_id": uuid.uuid4().hex, "seq": battle["seq"]}
            r = await self.http.post(f"/api/v1/battles/{self.battle}/actions", json=body)
            clock = battle["turn_bar"]["clock"]
            if r.status_code == 409:  # someone acted first: the feed brings what they did
                return
            self.tried.add(key)  # entered or refused, not stale: once is enough
            if r.status_code in (403, 422):  # e.g. a ship without a damage sheet: choose again
                detail = r.json()["detail"]
                print(f"{clock}: {kind} refused ({detail.get('field')}): {detail['reason']}", flush=True)
                continue
            r.raise_for_status()
            if kind == "traveller.barrage":
                self.fired.add((str(battle["turn_bar"]["turn"]), payload["ship"]))
            print(f"{clock}: {kind} → seq {r.json().get('seq')}", flush=True)

    async def run(self) -> None:
        async with self.http:
            battle = await self.read()
            since = battle["seq"]
            await self.play()
            while not self.done:
                since = await self.follow(since)
                if not self.done:  # the server restarted: follow again from there (another replica)
                    await asyncio.sleep(1)  # as the restart event's `retry: 1000` asks
            battle = await self.read()
            if battle["status"] == "finished" and not self.ending:  # it saw the end in a read
                self.ending = await self.last_words(battle["seq"])
            print(f"end at seq {battle['seq']}: {self.ending or battle['status']}", flush=True)

    async def last_words(self, seq: int) -> str:
        """How the battle ended, in the log's own words (its last entry's `battle_end` event)."""
        r = await self.http.get(f"/api/v1/battles/{self.battle}/events", params={"since": max(seq - 1, 0)})
        r.raise_for_status()
        return self.end_of(r.json()["entries"][-1]["events"])

    @staticmethod
    def end_of(events: list[dict[str, Any]]) -> str:
        ends = [e["text"] for e in events if e.get("kind") == "battle_end"]
        return ends[-1] if ends else "the battle has ended"

    async def follow(self, since: int) -> int:
        """Follow the feed from `since`; returns the last seq seen when it closes."""
        async with self.http.stream(
            "GET", f"/api/v1/battles/{self.battle}/feed", params={"since": since}
        ) as r:
            r.raise_for_status()
            async for line in r.aiter_lines():
                if line == "event: restart":
                    return since  # not done: run() follows again from the last seq seen
                if not line.startswith("data: "):
                    continue  # id: lines, keep-alive comments, blank separators
                item = json.loads(line[6:])
                since = item["seq"]
                if item["finished"]:
                    self.ending = self.end_of(item.get("events", []))
                    self.done = True
                    return since
                if item["waiting_on_you"]:
                    await self.play()
                    if self.done:
                        return since
        self.done = True  # the server closed the feed: the token stopped working or the battle ended
        return since


VALUED = ("--url", "--battle", "--token", "--hit", "--turns")


def arguments(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line. A token is URL-safe base64 and one in 64 begins with "-", which argparse
    would take for an option (`--token -x…`: "expected one argument"), so each option's value is
    glued to it (`--token=-x…`) before parsing."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--battle", required=True)
    parser.add_argument("--token", required=True, help="the seat's token (after # in its join link)")
    parser.add_argument("--hit", type=int, default=1, help="damage points it enters once a step")
    parser.add_argument("--turns", type=int, default=None, help="stop when this turn is over")
    args = list(sys.argv[1:] if argv is None else argv)
    glued: list[str] = []
    while args:
        arg = args.pop(0)
        glued.append(f"{arg}={args.pop(0)}" if arg in VALUED and args else arg)
    return parser.parse_args(glued)


def main(argv: list[str] | None = None) -> None:
    args = arguments(argv)
    asyncio.run(Bot(args.url, args.battle, args.token, args.hit, args.turns).run())


if __name__ == "__main__":
    sys.exit(main())
