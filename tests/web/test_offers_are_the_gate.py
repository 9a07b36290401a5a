"""What a seat is offered (`may_submit` in the REST battle read) is exactly what the rules' gate
admits for that seat and ship at that step (GEN-01, GEN-04): bots build on it, so an offer the gate
(or the handler behind it) would refuse for that ship is a lie, and so is a missing one.

Three battles made through REST, one per ruleset: SFB with a Shadow and Federation ships, B5 Wars
with Star Trek ships and a Shadow, and Traveller High Guard. Each is walked through every step of a
turn and into the next; at every step, for every seat, every action and every ship, offered ⇔ the
gate passes. The gate is asked directly (a valid payload for every action would be a test of its
own); what the handlers refuse for a ship whatever the payload (a Shadow action for a ship with no
pain track, a shield transfer in Ship Power with no collapsed projection to shore up, ST-15a) is
checked against the ships' parts, independently of the gate. SQLite only.
"""

from __future__ import annotations

import httpx
import pytest

from app.rules.core import RuleError
from app.rules.startrek.display import warp_values
from app.rules.state import BattleState
from app.rules.system import ALLOCATION
from app.rules.views import viewer_for
from app.services.store.battles import load_state
from tests.helpers import Table, act, set_table, ship_def, traveller_table


@pytest.fixture
def db_url(sqlite_url: str) -> str:
    return sqlite_url


# The part each Star Trek ship action works on: a ship without it is refused whatever the payload.
STARTREK_PARTS = {
    "startrek.extend_arc": ("shields",),
    "startrek.retract_arc": ("shields",),
    "startrek.buy_regeneration": ("shields",),
    "startrek.transfer_shields": ("shields",),
    "startrek.switch_system": ("shields", "power"),
    "startrek.thrust": ("impulse",),
    "startrek.load_torpedoes": ("photon_launcher",),
    "startrek.fire_torpedoes": ("photon_launcher",),
    "startrek.declare_warp": ("warp",),
    "startrek.shutdown_nacelle": ("warp",),
    "startrek.cloak": ("cloak",),
    "startrek.decloak": ("cloak",),
}


async def offers(c: httpx.AsyncClient, t: Table, who: str) -> dict[str, list[str]]:
    r = await c.get(f"/api/v1/battles/{t.battle_id}", headers=t.auth(who))
    assert r.status_code == 200, r.text
    return {o["type"]: o["ships"] for o in r.json()["may_submit"]}


async def state_of(c: httpx.AsyncClient, t: Table) -> BattleState:
    platform = c.app.state.platform  # type: ignore[attr-defined]
    async with platform.db.reader() as session:
        state, _ = await load_state(session, t.battle_id, platform.rules)
    return state


def gate_admits(state: BattleState, who_id: str, role: str, action: str, ship: str | None) -> bool:
    actor = viewer_for(who_id, role, state)
    try:
        state.game.gate(state, state.game.spec(action), actor, ship)
    except RuleError:
        return False
    return True


def check_step(state: BattleState, t: Table, who: str, offered: dict[str, list[str]]) -> list[str]:
    """Every mismatch between the offers and the gate, and every offer the ship's parts rule out."""
    role = {"ref": "referee", "watcher": "spectator"}.get(who, "player")
    where = f"{state.game.step(state.clock).title(state.clock)}, {who}"
    wrong: list[str] = []
    for name, spec in state.game.actions.items():
        if spec.ship is None:
            admitted = gate_admits(state, t.ids[who], role, name, None)
            if admitted != (name in offered):
                wrong.append(f"{where}: {name} offered {name in offered}, gate {admitted}")
            continue
        for sid, ship in sorted(state.ships.items()):
            admitted = gate_admits(state, t.ids[who], role, name, sid)
            shown = sid in offered.get(name, [])
            if admitted != shown:
                wrong.append(f"{where}: {name} for {sid} offered {shown}, gate {admitted}")
            if not shown:
                continue
            if name.startswith("shadow.") and ship.part("pain") is None:
                wrong.append(f"{where}: {name} offered for {sid}, which has no pain track")
            needs = STARTREK_PARTS.get(name, ())
            if needs and not any(ship.part(p) is not None for p in needs):
                wrong.append(f"{where}: {name} offered for {sid}, which has no {' or '.join(needs)}")
            if name == "startrek.detect_cloak" and not any(
                (other.part("cloak") or {}).get("cloaked")
                for other in state.ships.values()
                if other.id != sid
            ):
                wrong.append(f"{where}: {name} offered for {sid} with no other ship cloaked")
            warp = ship.part("warp") or {}
            if name == "startrek.declare_warp" and (
                warp.get("counter") or warp.get("declared_turn") == state.clock.turn
            ):
                wrong.append(f"{where}: {name} offered for {sid} with its warp delay running or declared")
            hg = ship.part("hg_ship") or {}
            if name == "traveller.spinal" and not hg.get("spinal"):
                wrong.append(f"{where}: {name} offered for {sid}, which has no spinal mount")
            if name == "traveller.launch" and ship.part("flight") is None:
                wrong.append(f"{where}: {name} offered for {sid}, which is not a flight")
            if name == "traveller.missile" and hg.get("kind", "capital") == "capital" and hg:
                wrong.append(f"{where}: {name} offered for {sid}, a capital ship (barrages only, TR-01a)")
            if name == "traveller.revive_frozen_watch" and not hg.get("frozen_watch_steps"):
                wrong.append(f"{where}: {name} offered for {sid}, which carries no frozen watch")
            if name == "startrek.transfer_shields" and state.game.in_moment(state, ALLOCATION):
                collapsed = [p for p in ship.parts["shields"]["projections"] if p.get("down_at_open")]
                if not collapsed:
                    wrong.append(
                        f"{where}: {name} offered for {sid} in Ship Power with no collapsed projection"
                    )
    return wrong


async def walk(c: httpx.AsyncClient, t: Table, seats: tuple[str, ...], steps: int) -> set[str]:
    """Every step from the start, `steps` of them; returns the action kinds offered on the way."""
    seen: set[str] = set()
    wrong: list[str] = []
    for _ in range(steps):
        state = await state_of(c, t)
        for who in seats:
            offered = await offers(c, t, who)
            seen.update(offered)
            wrong += check_step(state, t, who, offered)
        r = await act(c, t, "ref", "clock.advance", {})
        assert r.status_code == 200, r.text
    assert wrong == []
    return seen


async def test_GEN_01_SFB_offers_are_the_gates_at_every_impulse(client: httpx.AsyncClient) -> None:
    t = await set_table(
        client,
        system="sfb",
        players=("kirk", "kosh"),
        ships={
            "shadow": (ship_def("shadow-cruiser"), "kosh"),
            "fed": (ship_def("federation-heavy-cruiser"), "kirk"),
        },
    )
    # Energy Allocation, impulses 1–32, end of turn, and the next turn's Energy Allocation.
    seen = await walk(client, t, ("ref", "kirk", "kosh", "watcher"), 35)
    assert {"shadow.plot_speed", "damage.apply", "ship.move"} <= seen
    kirk = await offers(client, t, "kirk")
    assert not [kind for kind in kirk if kind.startswith("shadow.")]  # none for a Federation ship


async def test_GEN_01_B5_Wars_offers_are_the_gates_per_ship(client: httpx.AsyncClient) -> None:
    t = await set_table(
        client,
        system="b5wars",
        players=("kirk", "kosh", "tomalak"),
        ships={
            "excelsior": (ship_def("excelsior"), "kirk"),
            "orleans": (ship_def("new-orleans"), "kirk"),
            "shadow": (ship_def("shadow-cruiser"), "kosh"),
            "warbird": (ship_def("romulan-warbird"), "tomalak"),
        },
    )
    # Ship Power: the Star Trek ships get their equipment's actions, the Shadow only its own; a
    # shield transfer waits for Adjust Ship Systems (no projection collapsed last turn).
    state = await state_of(client, t)
    assert state.game.in_moment(state, ALLOCATION)
    kirk, kosh = await offers(client, t, "kirk"), await offers(client, t, "kosh")
    assert not [kind for kind in kirk if kind.startswith("shadow.")]
    assert [kind for kind in kosh if kind.startswith(("shadow.", "startrek."))] == ["shadow.plot_speed"]
    assert "startrek.transfer_shields" not in kirk
    assert kirk["startrek.load_torpedoes"] == [t.ships["orleans"]]  # the launcher is the New Orleans'
    # Two turns: Ship Power, Movement, Combat, Adjust Ship Systems, twice.
    seen = await walk(client, t, ("ref", "kirk", "kosh", "tomalak", "watcher"), 8)
    assert {"startrek.transfer_shields", "startrek.cloak", "startrek.thrust"} <= seen
    state = await state_of(client, t)
    assert state.game.in_moment(state, ALLOCATION)


async def test_ST_15a_a_transfer_is_offered_in_Ship_Power_once_a_projection_collapsed(
    client: httpx.AsyncClient,
) -> None:
    """The other side of the same gate: with the Fore projection collapsed at the end of turn 1 (set
    by the referee), the transfer that shores it up is offered in turn 2's Ship Power, and accepted."""
    t = await set_table(
        client,
        system="b5wars",
        players=("kirk", "kosh"),
        ships={"excelsior": (ship_def("excelsior"), "kirk"), "shadow": (ship_def("shadow-cruiser"), "kosh")},
    )
    ship = t.ships["excelsior"]
    for _ in range(3):  # to Adjust Ship Systems
        assert (await act(client, t, "ref", "clock.advance", {})).status_code == 200
    for key, value in (("current", 0), ("collapsed", True)):
        body = {
            "path": f"ships.{ship}.parts.shields.projections.0.{key}",
            "value": value,
            "reason": "fore falls",
        }
        r = await act(client, t, "ref", "override.set", body)
        assert r.status_code == 200, r.text
    assert (await act(client, t, "ref", "clock.advance", {})).status_code == 200
    state = await state_of(client, t)
    assert state.game.in_moment(state, ALLOCATION) and state.clock.turn == 2
    kirk = await offers(client, t, "kirk")
    assert kirk["startrek.transfer_shields"] == [ship]
    assert check_step(state, t, "kirk", kirk) == []
    shore = {"ship": ship, "source": "Starboard", "target": "Fore", "points": 5}
    r = await act(client, t, "kirk", "startrek.transfer_shields", shore)
    assert r.status_code == 200, r.text


async def test_GEN_01_High_Guard_offers_are_the_gates_every_round(client: httpx.AsyncClient) -> None:
    t = await traveller_table(client)
    # Orders, manoeuvre, combat action, ship action, end of round, twice, and the third orders.
    seen = await walk(client, t, ("ref", "ann", "bob", "watcher"), 11)
    assert {
        "traveller.barrage",
        "traveller.repair",
        "traveller.spinal",
        "traveller.revive_frozen_watch",
    } <= seen
    # Only the Dauntless has a spinal mount, only the Arbellatra a frozen watch; neither is a flight
    # to launch, and capital ships fire missiles as barrages (TR-01a).
    bob, ann = await offers(client, t, "bob"), await offers(client, t, "ann")
    assert (
        ann["traveller.revive_frozen_watch"] == ["arbellatra"] and "traveller.revive_frozen_watch" not in bob
    )
    assert "traveller.launch" not in ann and "traveller.launch" not in bob


async def test_ST_17_warp_is_offered_until_it_is_declared(client: httpx.AsyncClient) -> None:
    """ST-17: warp is declared once, at the start of the turn: once Kirk has declared it for the
    Excelsior, the offer names only the Thomas Paine, and the gate refuses the Excelsior in the
    handler's words."""
    t = await set_table(
        client,
        system="b5wars",
        players=("kirk", "kosh"),
        ships={
            "excelsior": (ship_def("excelsior"), "kirk"),
            "orleans": (ship_def("new-orleans"), "kirk"),
            "shadow": (ship_def("shadow-cruiser"), "kosh"),
        },
    )
    both = sorted([t.ships["excelsior"], t.ships["orleans"]])
    assert (await offers(client, t, "kirk"))["startrek.declare_warp"] == both
    r = await act(client, t, "kirk", "startrek.declare_warp", {"ship": "excelsior"})
    assert r.status_code == 200, r.text
    assert (await offers(client, t, "kirk"))["startrek.declare_warp"] == [t.ships["orleans"]]
    r = await act(client, t, "kirk", "startrek.declare_warp", {"ship": "excelsior"})
    assert r.status_code == 422
    assert r.json()["detail"]["reason"] == "Excelsior has already declared warp this turn"
    state = await state_of(client, t)
    assert check_step(state, t, "kirk", await offers(client, t, "kirk")) == []


def card_offers_shutdown(state: BattleState, ship_id: str) -> bool:
    """Whether the ship card's warp panel draws the shut-down form (beside the gate's offer)."""
    ship = state.ships[ship_id]
    return bool(warp_values(ship.parts["warp"], ship, state)["may_shut_down"])


async def test_ST_20_a_nacelle_shut_down_is_offered_exactly_when_the_gate_takes_it(
    client: httpx.AsyncClient,
) -> None:
    """ST-20: a ship with more than two working nacelles may shut one down, once a turn, in Ship
    Power. The Excelsior built with four is offered it, the Thomas Paine (a New Orleans) with two never is; once one
    is shut down the offer goes for the rest of the turn and the gate refuses in the same words,
    and the next turn's Ship Power offers it again (three still working)."""
    four = ship_def("excelsior")
    for section in four["parts"]["sheet"]["sections"]:
        if section["name"] == "Primary":
            section["systems"] += [
                {"name": "Dorsal Nacelle", "kind": "nacelle", "boxes": 20},
                {"name": "Ventral Nacelle", "kind": "nacelle", "boxes": 20},
            ]
    t = await set_table(
        client,
        system="b5wars",
        players=("kirk", "kosh"),
        ships={
            "excelsior": (four, "kirk"),
            "orleans": (ship_def("new-orleans"), "kirk"),
            "shadow": (ship_def("shadow-cruiser"), "kosh"),
        },
    )
    excelsior, orleans = t.ships["excelsior"], t.ships["orleans"]
    assert (await offers(client, t, "kirk"))["startrek.shutdown_nacelle"] == [excelsior]
    state = await state_of(client, t)
    assert card_offers_shutdown(state, excelsior) and not card_offers_shutdown(state, orleans)
    r = await act(
        client, t, "kirk", "startrek.shutdown_nacelle", {"ship": orleans, "nacelle": "Port Nacelle"}
    )
    assert r.status_code == 422
    assert (
        r.json()["detail"]["reason"]
        == "Thomas Paine needs more than two working nacelles to shut one down (ST-20)"
    )
    r = await act(
        client, t, "kirk", "startrek.shutdown_nacelle", {"ship": excelsior, "nacelle": "Dorsal Nacelle"}
    )
    assert r.status_code == 200, r.text
    offered = await offers(client, t, "kirk")
    assert "startrek.shutdown_nacelle" not in offered
    assert check_step(await state_of(client, t), t, "kirk", offered) == []
    r = await act(
        client, t, "kirk", "startrek.shutdown_nacelle", {"ship": excelsior, "nacelle": "Ventral Nacelle"}
    )
    assert r.status_code == 422
    detail = r.json()["detail"]
    assert (detail["field"], detail["reason"]) == (
        "ship",
        "Excelsior has already shut down a nacelle this turn; one a turn (ST-20)",
    )
    state = await state_of(client, t)
    assert not card_offers_shutdown(state, excelsior)
    while state.clock.turn == 1 or not state.game.in_moment(state, ALLOCATION):
        r = await act(client, t, "ref", "clock.advance", {})
        assert r.status_code == 200, r.text
        state = await state_of(client, t)
    offered = await offers(client, t, "kirk")
    assert offered["startrek.shutdown_nacelle"] == [excelsior]
    assert check_step(state, t, "kirk", offered) == []
    assert card_offers_shutdown(state, excelsior) and not card_offers_shutdown(state, orleans)
