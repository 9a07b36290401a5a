"""A fifth ruleset defined here, in the test suite alone: training drones, with one part (a battery
the referee may set, the report charts and the map shows as a badge on the counter), one action
that drains it, and a turning point when it runs flat. It plays in a test-made hex system, through
the service on SQLite and PostgreSQL — and the override picker, the battle report and the tactical
map pick it up from the part's own declaration, with no file under app/ naming it."""

from __future__ import annotations

import sys
import uuid
from typing import Any

from pydantic import BaseModel, Field

from app.rules import STANDARD, Rules
from app.rules.core import Actor, Event, RuleError
from app.rules.counters import Badge, Counter
from app.rules.dice import DiceSource
from app.rules.figures import Figures, Turning, Value
from app.rules.overrides import choices_for
from app.rules.ruleset import Settable, action, gather, part, when
from app.rules.state import BattleState, Ship
from app.rules.system import FIRE, GameSystem, Step
from app.services.platform import Platform
from app.services.reading.report import battle_report
from app.services.reading.views import battle_for
from app.services.store.battles import add_participant, create_battle, get_battle, load_state, participants
from app.services.write import actions
from app.services.write.actions import Command
from app.web.drawing.render import page_context, render

# --- the ruleset: one part, one action ----------------------------------------------------------


def battery_figures(part: dict[str, Any]) -> Figures:
    return Figures(values=(Value("Battery", part["battery"], part["battery_max"]),))


def battery_badge(part: dict[str, Any]) -> Counter:
    return Counter(badge=Badge(f"B{part['battery']}", f"battery {part['battery']}", "battery"))


def ran_flat(event: dict[str, Any]) -> bool:
    return (event.get("data") or {}).get("battery") == 0


@part(
    "drone",
    settable=(Settable("battery", "Battery charge", upto="battery_max"),),
    report=battery_figures,
    turning=(Turning("drone_pulse", "flat", "Battery flat", ran_flat),),
    counter=battery_badge,
)
class Drone(BaseModel):
    battery: int = Field(default=3, ge=0, le=12)
    battery_max: int = Field(default=3, ge=1, le=12)


class Pulse(BaseModel):
    ship: str


@when(FIRE)
@action("drone.pulse", Pulse, "Fire a training pulse", ship="ship")
def pulse(state: BattleState, p: Pulse, actor: Actor, dice: DiceSource) -> list[Event]:
    ship = state.ship(p.ship)
    drone = Drone.model_validate(ship.parts["drone"])
    if drone.battery == 0:
        raise RuleError(f"{ship.name}'s battery is flat", "ship")
    drone.battery -= 1
    ship.parts["drone"] = drone.model_dump(mode="json")
    text = f"{ship.name} fires a training pulse (battery {drone.battery})."
    return [Event(kind="drone_pulse", ship=ship.id, text=text, data={"battery": drone.battery})]


DRONES = gather("drone", "Training drones", [sys.modules[__name__]])
DRILL = GameSystem(
    key="drill",
    name="Drill (a test system)",
    fleets=frozenset({"sfb"}),
    rulesets=("generic", "drone"),
    board="hex",
    steps=(Step("drill", "Drill", "D", frozenset({FIRE}), acts="anyone"),),
)
RULES: Rules = STANDARD.with_ruleset(DRONES).with_system(DRILL)
DRONE = {"name": "Target Drone", "system": "sfb", "parts": {"drone": {"battery": 1, "battery_max": 3}}}


def test_the_picker_offers_the_drones_declared_value_with_its_cap() -> None:
    state = RULES.new_battle("drill")
    parts = state.game.validate_parts(DRONE["parts"])
    state.ships["target-drone"] = Ship(id="target-drone", name="Target Drone", system="sfb", parts=parts)
    (battery,) = [c for c in choices_for(state, "target-drone") if c.group == "drone"]
    assert (battery.path, battery.label, battery.kind, battery.allowed, battery.shown) == (
        "ships.target-drone.parts.drone.battery",
        "Battery charge",
        "number",
        "0 to 3",  # the model's ge=0, capped by the sibling battery_max
        "1",
    )
    assert "drone" not in STANDARD.parts()  # the standard rules are untouched


async def test_the_report_and_the_map_read_the_drones_part(platform: Platform) -> None:
    platform.rules = RULES
    async with platform.db.transaction() as session:
        battle, ref = await create_battle(session, "Drill", "drill", dice_mode="physical", rules=RULES)
        cadet = await add_participant(session, battle, "Cadet", "player")
    ids = {"ref": ref.participant.id, "cadet": cadet.participant.id}

    async def act(who: str, kind: str, payload: dict[str, Any]) -> actions.Submitted:
        return await actions.submit(platform, Command(battle.id, ids[who], kind, payload, uuid.uuid4().hex))

    await act("ref", "ship.add", {"definition": DRONE, "owner": ids["cadet"]})
    position = {"hex": "0505", "facing": 1, "speed": 0}
    await act("ref", "ship.move", {"ship": "target-drone", "position": position})
    fired = await act("cadet", "drone.pulse", {"ship": "target-drone"})
    assert fired.events[0]["text"] == "Target Drone fires a training pulse (battery 0)."

    async with platform.db.reader() as session:
        battle = await get_battle(session, battle.id)
        me = next(p for p in await participants(session, battle.id) if p.name == "Cadet")
        report = await battle_report(session, battle, me, RULES)
        data = await battle_for(session, battle, me, RULES)
        referee = next(p for p in await participants(session, battle.id) if p.role == "referee")
        context = await page_context(session, battle, referee, "csrf", rules=RULES)
        state, _ = await load_state(session, battle.id, RULES)

    # The report: the battery charted as one of the drone's figures, and running flat a turning point.
    (series,) = report.figures
    assert (series.ship, series.figure, series.most) == ("target-drone", "Battery", 3)
    assert [(p.turn, p.value) for p in series.points] == [(1, 0)]
    assert [(tp.kind, tp.label, tp.event) for tp in report.turning_points] == [
        ("flat", "Battery flat", "drone_pulse")
    ]
    # The map: the drone's counter at its hex, wearing the badge its part declares.
    (counter,) = data["map"]["counters"]
    assert (counter["hex"], counter["badge"]) == (
        "0505",
        {"text": "B0", "title": "battery 0", "kind": "battery"},
    )
    # The referee's page: the picker lists the battery, and the board draws the badge.
    assert [c.label for c in context["override_choices"]["target-drone"] if c.group == "drone"] == [
        "Battery charge"
    ]
    assert "Battery charge" in render("partials/override_picker.html", context)
    assert '<text y="3.5">B0</text>' in render("partials/map_board.html", context)
    assert state.ships["target-drone"].parts["drone"]["battery"] == 0
