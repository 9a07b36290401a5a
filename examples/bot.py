"""A reference Starboard bot: only the documented REST API and the push feed (httpx).

    python examples/bot.py --url http://127.0.0.1:8000 --battle BATTLE --token TOKEN [--turns 2]

It reads the battle once, then follows `GET /api/v1/battles/{id}/feed` (Server-Sent Events) from
that seq. Whenever the battle waits on it (`waiting_on_you` on the newest event, or `your_move` in
the battle it read) it reads the battle and plays one legal move chosen from `may_submit`:

- `damage.apply` offered and not yet fired this step: 1 point of damage from its first ship still
  fighting on the first enemy ship (one it does not command) still fighting;
- `traveller.orders` offered for a ship whose orders are not committed: commit empty orders;
- otherwise `step.ready` (done with this step), if offered.

Each action carries the seq it was chosen at, so a battle that moved on answers 409 and the bot
waits for the next event. It stops when the battle ends, when turn `--turns` + 1 begins, or when
the feed closes. It prints one line per action it takes.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import uuid
from typing import Any

import httpx


class Bot:
    def __init__(self, url: str, battle: str, token: str, turns: int) -> None:
        self.http = httpx.AsyncClient(
            base_url=url,
            headers={"Authorization": f"Bearer {token}"},
            timeout=httpx.Timeout(30, read=60),  # the feed sends a keep-alive every 15 s
        )
        self.battle = battle
        self.turns = turns
        self.fired: set[str] = set()  # the steps (clock descriptions) it has fired in
        self.done = False

    async def read(self) -> dict[str, Any]:
        r = await self.http.get(f"/api/v1/battles/{self.battle}")
        r.raise_for_status()
        return r.json()

    def over(self, battle: dict[str, Any]) -> bool:
        bar = battle["turn_bar"]
        return battle["status"] == "finished" or bar["finished"] or bar["turn"] > self.turns

    def choose(self, battle: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
        """One legal move from what the battle offers now (None: nothing to do)."""
        offers = {o["type"]: o for o in battle["may_submit"]}
        clock = battle["turn_bar"]["clock"]
        mine = set(battle["me"]["ships"])
        ships = battle["state"]["ships"]
        if "damage.apply" in offers and clock not in self.fired:
            fighting = sorted(sid for sid, ship in ships.items() if not ship.get("destroyed"))
            enemies = [sid for sid in fighting if sid not in mine]
            sources = [sid for sid in fighting if sid in mine]
            if enemies and sources:
                hit = {"target": enemies[0], "source": sources[0], "amount": 1, "direction": "fore"}
                return "damage.apply", hit
        if "traveller.orders" in offers:
            for sid in offers["traveller.orders"]["ships"]:
                hg = ships[sid]["parts"].get("hg_ship", {})
                if not hg.get("round", {}).get("committed"):
                    return "traveller.orders", {"ship": sid, "orders": [], "commit": True}
        if "step.ready" in offers:
            return "step.ready", {}
        return None

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
            kind, payload = move
            body = {"type": kind, "payload": payload, "action_id": uuid.uuid4().hex, "seq": battle["seq"]}
            r = await self.http.post(f"/api/v1/battles/{self.battle}/actions", json=body)
            if r.status_code == 409:  # someone acted first: the feed brings what they did
                return
            if kind == "damage.apply":  # once a step, entered or refused (not when stale: try again)
                self.fired.add(battle["turn_bar"]["clock"])
                if r.status_code == 422:  # e.g. a ship without a damage sheet: go on to another move
                    print(
                        f"{battle['turn_bar']['clock']}: damage refused: {r.json()['detail']['reason']}",
                        flush=True,
                    )
                    continue
            r.raise_for_status()
            print(f"{battle['turn_bar']['clock']}: {kind} → seq {r.json().get('seq')}", flush=True)

    async def run(self) -> None:
        async with self.http:
            battle = await self.read()
            since = battle["seq"]
            await self.play()
            while not self.done:
                since = await self.follow(since)

    async def follow(self, since: int) -> int:
        """Follow the feed from `since`; returns the last seq seen when it closes."""
        async with self.http.stream(
            "GET", f"/api/v1/battles/{self.battle}/feed", params={"since": since}
        ) as r:
            r.raise_for_status()
            async for line in r.aiter_lines():
                if not line.startswith("data: "):
                    continue  # id: lines, keep-alive comments, blank separators
                item = json.loads(line[6:])
                since = item["seq"]
                if item["finished"]:
                    self.done = True
                    return since
                if item["waiting_on_you"]:
                    await self.play()
                    if self.done:
                        return since
        self.done = True  # the server closed the feed: the token stopped working or the battle ended
        return since


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--battle", required=True)
    parser.add_argument("--token", required=True, help="the seat's token (after # in its join link)")
    parser.add_argument("--turns", type=int, default=2, help="stop when this turn is over")
    args = parser.parse_args(argv)
    asyncio.run(Bot(args.url, args.battle, args.token, args.turns).run())


if __name__ == "__main__":
    sys.exit(main())
