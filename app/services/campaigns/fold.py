"""The campaign rebuilt from its log: a pure fold over the events, in seq order.

Every change to a campaign is an event (log.py); the fleets, players, battles and each ship's
history are never stored but folded here, so a campaign can be exported as its log, imported by
appending the same events, and rewound to any seq (a `rewound` event puts back the campaign as it
stood after that seq; the events after it stay in the log, as a battle's rewind does). An event
records outcomes, never requests: a repair's dice are rolled once, when it is made, and the event
holds the part they left — so the fold rolls nothing and reads the same on every replay."""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from typing import Any

READY, IN_BATTLE, DESTROYED, RETIRED = "ready", "in_battle", "destroyed", "retired"


def empty() -> dict[str, Any]:
    return {
        "seq": 0,
        "name": "",
        "system": "",
        "options": {},
        "sides": [],
        "players": {},
        "ships": {},
        "battles": {},
        "rewound_to": None,
    }


def _ship(state: dict[str, Any], data: Mapping[str, Any]) -> dict[str, Any]:
    return state["ships"][data["ship"]]


def apply(state: dict[str, Any], seq: int, kind: str, data: Mapping[str, Any]) -> dict[str, Any]:
    """One event on the campaign (state is changed in place and returned)."""
    state["seq"] = seq
    if kind == "campaign_created":
        state.update(name=data["name"], system=data["system"], options=dict(data.get("options") or {}))
    elif kind == "side_added":
        if data["side"] not in state["sides"]:
            state["sides"].append(data["side"])
    elif kind == "player_added":
        state["players"][data["seat"]] = {"id": data["seat"], "name": data["name"], "side": data["side"]}
    elif kind == "ship_added":
        definition = data["definition"]
        state["ships"][data["ship"]] = {
            "id": data["ship"],
            "name": definition["name"],
            "klass": definition.get("klass", ""),
            "side": data["side"],
            "player": data.get("player"),
            "points": data.get("points"),
            "definition": definition,
            "parts": copy.deepcopy(definition.get("parts") or {}),
            "status": READY,
            "joined": seq,
            "history": [],
            "repairs": [],
        }
    elif kind == "ship_retired":
        ship = _ship(state, data)
        ship["status"] = RETIRED
        ship["repairs"].append({"seq": seq, "text": f"retired: {data.get('reason') or 'no reason given'}"})
    elif kind == "battle_started":
        state["battles"][data["battle"]] = {
            "id": data["battle"],
            "name": data["name"],
            "ships": dict(data["ships"]),
            "status": "running",
            "started": seq,
            "winner": None,
        }
        for fleet_id in data["ships"]:
            state["ships"][fleet_id]["status"] = IN_BATTLE
    elif kind == "battle_recorded":
        battle = state["battles"][data["battle"]]
        battle.update(status="recorded", winner=data.get("winner"), recorded=seq)
        for fleet_id, result in data["ships"].items():
            ship = state["ships"][fleet_id]
            ship["parts"] = copy.deepcopy(result["parts"])
            ship["status"] = DESTROYED if result.get("destroyed") else READY
            ship["history"].append(
                {
                    "battle": data["battle"],
                    "name": battle["name"],
                    "seq": seq,
                    "taken": result.get("taken", 0),
                    "dealt": result.get("dealt", 0),
                    "kills": list(result.get("kills") or []),
                    "destroyed": bool(result.get("destroyed")),
                }
            )
    elif kind in ("repaired", "ruling"):
        ship = _ship(state, data)
        ship["parts"] = copy.deepcopy(data["parts"])
        ship["repairs"].append({"seq": seq, "text": data["text"], "kind": kind})
    else:
        raise ValueError(f"unknown campaign event {kind!r}")
    return state


def fold(events: Iterable[tuple[int, str, Mapping[str, Any]]], upto: int | None = None) -> dict[str, Any]:
    """The campaign after its events (seq, kind, data) in seq order, up to `upto` when given. A
    `rewound` event (data `to`) puts back the campaign as it stood after that seq."""
    states: dict[int, dict[str, Any]] = {0: empty()}
    state = empty()
    for seq, kind, data in events:
        if upto is not None and seq > upto:
            break
        if kind == "rewound":
            state = copy.deepcopy(states[max(s for s in states if s <= int(data["to"]))])
            state["seq"], state["rewound_to"] = seq, int(data["to"])
        else:
            state = apply(state, seq, kind, data)
            state["rewound_to"] = None
        states[seq] = copy.deepcopy(state)
    return state


def totals(ship: Mapping[str, Any]) -> dict[str, int]:
    """A ship's record across battles: battles fought, damage taken and dealt, kills."""
    history = ship.get("history") or []
    return {
        "battles": len(history),
        "taken": sum(h["taken"] for h in history),
        "dealt": sum(h["dealt"] for h in history),
        "kills": sum(len(h["kills"]) for h in history),
    }
