"""Traveller High Guard capital-ship combat (TR-01 … TR-27, GEN-05).

The ruleset: the `hg_ship` and `flight` parts, every `traveller.*` action, the round hooks (fires,
frozen watch, orders reveal, end-of-round effects), the combat loop's turn order (TR-04) and jumping
out of the battle.

Where each rule lives: orders.py TR-26 (secret orders, reveal, emergency orders); initiative.py
TR-03, TR-04 and loop.py the combat-action loop; barrage.py TR-05 … TR-13 and TR-25; spinal.py
TR-11; missiles.py TR-01a; hits.py TR-14 … TR-20 (location, sections, system hits, criticals);
damage.py entered hits and the referee's ruling; criticals.py fires (TR-20); radiation.py; crew.py
TR-23, TR-24 and abandoning ship (TR-27); repairs.py TR-22; movement.py manoeuvre, dodges, jumps and
launches; ranges.py the range board; flights.py TR-25a; tables.py the published tables.
"""

from app.rules.ruleset import gather
from app.rules.state import Ship
from app.rules.system import FIRE, MOVEMENT, ORDERS, SHIP_ACTION
from app.rules.traveller import (
    barrage,
    crew,
    criticals,
    damage,
    display,
    flights,
    initiative,
    loop,
    missiles,
    movement,
    orders,
    ranges,
    repairs,
    ship,
    spinal,
    turns,
)
from app.rules.traveller.campaign import hg_carry, hg_mend


def jumped_out(unit: Ship) -> str | None:
    """A ship that jumped has left the battle: it takes no further actions."""
    if (unit.parts.get("hg_ship") or {}).get("jumped") is not None:
        return f"{unit.name} has jumped out of the battle"
    return None


RULESET = gather(
    "high_guard",
    "High Guard capital ships",
    [
        barrage,
        crew,
        criticals,
        damage,
        flights,
        initiative,
        missiles,
        movement,
        orders,
        ranges,
        repairs,
        ship,
        spinal,
    ],
    parts={
        "hg_ship": {
            "display": display.unit,
            "report": display.hg_figures,
            "carry": hg_carry,
            "mend": hg_mend,
        },
        "flight": {"display": display.unit},
    },
    needs=frozenset({ORDERS, MOVEMENT, FIRE, SHIP_ACTION}),
    gone=jumped_out,
    acting=turns.acting,
    referee_due=turns.referee_due,
    out_of_turn=loop.out_of_turn,
    on_ready=turns.on_ready,
    turn_order=turns.turn_order,
    panel=display.panel,
    range_board=ranges.board_view,
)
