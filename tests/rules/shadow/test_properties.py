"""Properties over random play (SH-01, SH-02, SH-07, SH-15): whatever the damage and dice,
pain stays within 0–16, within a turn the reaction only falls through reduction, and death is final."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.rules import Action, apply_action
from app.rules.core import REFEREE, RuleError
from app.rules.dice import SeededDice
from app.rules.shadow.track import PAIN_MAX, rank
from app.rules.state import BattleState

from .support import EXCALIBUR, KER, PLAYER, YORKTOWN, at_impulse, pain

Step = tuple[str, int]
steps = st.lists(
    st.one_of(
        st.tuples(st.just("hit"), st.integers(min_value=20, max_value=400)),
        st.tuples(st.sampled_from(["impulse", "impulse", "turn", "reduce"]), st.just(0)),
    ),
    min_size=4,
    max_size=40,
)


def play(state: BattleState, step: Step, dice: SeededDice) -> BattleState:
    kind, amount = step
    try:
        if kind == "hit":
            source = EXCALIBUR if amount % 2 else YORKTOWN
            payload = {"target": KER, "amount": amount, "source": source, "direction": "fore"}
            return apply_action(state, Action("damage.apply", payload, REFEREE), dice).state
        if kind == "reduce":
            return apply_action(state, Action("shadow.reduce_pain", {"ship": KER}, PLAYER), dice).state
        state = apply_action(state, Action("clock.advance", {}, REFEREE), dice).state
        while kind == "turn" and state.clock.step != "energy_allocation":
            state = apply_action(state, Action("clock.advance", {}, REFEREE), dice).state
        return state
    except RuleError:
        return state


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(start=st.integers(min_value=0, max_value=15), seed=st.binary(min_size=1, max_size=8), script=steps)
def test_SH_01_SH_02_SH_07_properties(start: int, seed: bytes, script: list[Step]) -> None:
    state = at_impulse(level=start)
    dead = False
    for index, step in enumerate(script):
        before = pain(state)
        turn = state.clock.turn
        state = play(state, step, SeededDice(seed, "prop", index))
        after = pain(state)
        assert 0 <= after.level <= PAIN_MAX
        if dead:
            assert (after.dead, state.ships[KER].destroyed, after.level) == (True, True, PAIN_MAX)
        dead = dead or after.dead
        if after.dead:
            assert state.ships[KER].destroyed and after.reaction == "DEATH"
        if state.clock.turn == turn and step[0] != "reduce":
            assert rank(after.reaction) >= rank(before.reaction)
        if step[0] == "reduce" and after.level < before.level:
            assert rank(after.reaction) <= rank(before.reaction)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    start=st.integers(min_value=10, max_value=15),
    seed=st.binary(min_size=1, max_size=8),
    blows=st.lists(st.integers(min_value=150, max_value=400), min_size=3, max_size=8),
    after=steps,
)
def test_SH_02_death_is_final_whatever_follows(
    start: int, seed: bytes, blows: list[int], after: list[Step]
) -> None:
    """Heavy blows until the ship dies of shock (or not), then anything at all: a corpse stays a corpse."""
    state = at_impulse(level=start)
    script: list[Step] = [s for blow in blows for s in (("hit", blow), ("impulse", 0))] + after
    died_at = None
    for index, step in enumerate(script):
        state = play(state, step, SeededDice(seed, "death", index))
        track = pain(state)
        if track.dead and died_at is None:
            died_at = index
        if died_at is not None:
            assert (track.dead, track.level, track.reaction, state.ships[KER].destroyed) == (
                True,
                16,
                "DEATH",
                True,
            )
            assert track.active() == [] and track.speed == 1
