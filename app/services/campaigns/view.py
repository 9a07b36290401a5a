"""The one read of a campaign for one viewer: every page and REST answer goes through here.

The referee sees everything. A player sees their own side whole. Where the campaign's set-up keeps
rosters secret (`secret_rosters`), another side's ship is unknown until it has fought (it went
into a battle, where the battle's own views show it): its name, class, history and every log
entry about it are left out, and so is its count. Of another side's ships that are known, a player
reads the name, class, status and battle record — never the parts (the damage it carries, its
repairs), which only its own side and the referee read."""

from __future__ import annotations

from typing import Any

from app.models import CampaignEvent, CampaignSeat
from app.services.campaigns.fold import totals

SHIP_EVENTS = ("ship_added", "ship_retired", "repaired", "ruling")


def _known(ship: dict[str, Any], secret: bool) -> bool:
    """A ship of another side a player may know of: rosters are open, or it has gone to battle."""
    return not secret or ship["status"] == "in_battle" or bool(ship["history"])


def _own(seat: CampaignSeat | None, ship: dict[str, Any]) -> bool:
    return seat is not None and (seat.role == "referee" or seat.side == ship["side"])


def campaign_view(state: dict[str, Any], seat: CampaignSeat | None) -> dict[str, Any]:
    """The campaign as this seat may read it (None: nobody seated — only its name and sides)."""
    referee = seat is not None and seat.role == "referee"
    secret = bool(state["options"].get("secret_rosters"))
    ships = []
    for ship in state["ships"].values():
        if referee or _own(seat, ship):
            ships.append({**ship, "totals": totals(ship), "own": True})
        elif seat is not None and _known(ship, secret):
            ships.append(
                {
                    "id": ship["id"],
                    "name": ship["name"],
                    "klass": ship["klass"],
                    "side": ship["side"],
                    "status": ship["status"],
                    "points": ship["points"],
                    "history": ship["history"],
                    "totals": totals(ship),
                    "own": False,
                }
            )
    return {
        "seq": state["seq"],
        "name": state["name"],
        "system": state["system"],
        "options": state["options"],
        "sides": state["sides"],
        "rewound_to": state["rewound_to"],
        "players": list(state["players"].values()) if seat is not None else [],
        "ships": ships,
        "battles": list(state["battles"].values()) if seat is not None else [],
        "viewer": None
        if seat is None
        else {"seat": seat.id, "name": seat.name, "role": seat.role, "side": seat.side},
    }


def log_view(rows: list[CampaignEvent], state: dict[str, Any], seat: CampaignSeat) -> list[dict[str, Any]]:
    """The campaign's log as this seat may read it: another side's ship entries are left out where
    the ship is not known to them; its repairs and rulings are left out always (they tell its
    damage). A ship a rewind took back is judged by the entry that added it."""
    referee = seat.role == "referee"
    secret = bool(state["options"].get("secret_rosters"))
    added = {r.data.get("ship"): r.data for r in rows if r.kind == "ship_added"}
    out = []
    for row in rows:
        whole = referee
        if row.kind in SHIP_EVENTS:
            sid = row.data.get("ship")
            ship = state["ships"].get(sid)
            side = ship["side"] if ship is not None else (added.get(sid) or {}).get("side")
            known = _known(ship, secret) if ship is not None else not secret
            own = seat.side == side
            if not referee and not own and (row.kind in ("repaired", "ruling") or not known):
                continue
            whole = referee or own
        else:
            whole = True
        out.append(
            {
                "seq": row.seq,
                "kind": row.kind,
                "actor": row.actor,
                "battle": row.battle_id,
                "text": describe(row, state, whole),
            }
        )
    return out


def describe(row: CampaignEvent, state: dict[str, Any], whole: bool) -> str:
    """The log entry in words."""
    d = row.data
    ship = state["ships"].get(d.get("ship")) or {}
    name = ship.get("name") or (d.get("definition") or {}).get("name") or d.get("ship")
    match row.kind:
        case "campaign_created":
            return f"Campaign {d['name']} begins ({d['system']})."
        case "side_added":
            return f"Side {d['side']} joins."
        case "player_added":
            return f"{d['name']} plays for {d['side']}."
        case "ship_added":
            points = f", {d['points']} points" if d.get("points") is not None else ""
            return f"{name} joins the {d['side']} fleet{points}."
        case "ship_retired":
            return f"{name} is retired: {d['reason']}." if whole else f"{name} is retired."
        case "battle_started":
            return f"Battle {d['name']} begins with {len(d['ships'])} ships."
        case "battle_recorded":
            lost = [
                state["ships"][k]["name"]
                for k, v in d["ships"].items()
                if v.get("destroyed") and k in state["ships"]
            ]
            tail = f"; lost: {', '.join(lost)}" if lost else ""
            won = f"; won by {d['winner']}" if d.get("winner") else ""
            return f"The battle's result comes home to the fleets{won}{tail}."
        case "repaired" | "ruling":
            return str(d.get("text", ""))
        case "rewound":
            return f"The campaign is put back as it stood after entry {d['to']}."
    return row.kind
