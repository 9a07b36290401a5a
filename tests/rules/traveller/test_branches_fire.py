"""Fire (TR-20, GEN-05, TR-27) clauses not met elsewhere: Command Discipline on the Discipline check, a
fire in a section already destroyed, and a fire at 12+ with nowhere left to spread."""

from __future__ import annotations

from app.rules.state import BattleState
from tests.rules.traveller.helpers import advance_to, battle, capital, hg, section
from tests.rules.traveller.test_order_effects import give

HOLD_ROLL = [3, 4]  # Internal 2D 7: Hold


def burning(*fires: tuple[str, int]) -> BattleState:
    """Tigress with fires that broke out in round 1, each at its Discipline target, at round 2's manoeuvre."""
    state = battle(capital("Kestrel"), capital("Tigress"), owners=("p-kestrel", "p-tigress"), orders=False)
    for s in hg(state, "tigress")["sections"]:
        s["hull"] = 0
    for name, target in fires:
        next(s for s in hg(state, "tigress")["sections"] if s["name"] == name)["fire"] = {
            "target": target,
            "started": 1,
        }
    return advance_to(state, "manoeuvre", turn=2).state


def test_TR_27_command_discipline_adds_1_to_the_discipline_check_against_fire():
    """Command Discipline: "Any skill checks other than Gunner checks made this round have +1 DM"."""
    state = give(burning(("Main", 8)), "tigress", "command_discipline")
    done = advance_to(state, "ship_action", dice=[3, 2])
    assert done.texts[-1] == (
        "Tigress puts out the fire in Main: 2D 5 + Crew Skill +2 + Command Discipline +1 = 8 vs 8+ → success (Effect 0)."
    )
    assert section(done.state, "tigress", "Main")["fire"] is None


def test_TR_20_a_fire_in_a_destroyed_section_burns_on_without_further_section_hits():
    state = burning(("Main", 8))
    main = section(state, "tigress", "Main")
    main.update(structure=0, destroyed=True)
    done = advance_to(state, "ship_action", dice=[1, 1])
    assert (
        done.texts[-1]
        == "The fire in Tigress's Main rages on: 2D 2 + Crew Skill +2 = 4 vs 8+ → failure (Effect −4)."
    )
    assert section(done.state, "tigress", "Main")["fire"]["target"] == 9


def test_TR_20_a_fire_reaching_12_with_both_neighbours_already_burning_spreads_nowhere():
    """Every check fails (each a Hold hit); Main goes from 11+ to 12+, but Engineering and Forward burn already."""
    state = burning(("Engineering", 8), ("Main", 11), ("Forward", 8))
    done = advance_to(state, "ship_action", dice=[1, 1, *HOLD_ROLL, 1, 1, *HOLD_ROLL, 1, 1, *HOLD_ROLL])
    assert [t for t in done.texts if "spreads" in t] == []
    assert section(done.state, "tigress", "Main")["fire"]["target"] == 12
