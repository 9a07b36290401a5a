"""What the referee's cloak actions and a detection attempt record, word for word (ST-23, ST-23a):
the signature set, each attempt's suggestion however the range was found, the ruling either way, and
each refusal on its field.

ST-23's suggestion is the catalogue's Decision: detected when EW > range + signature. The Bird of
Prey (Kor'vaq) is the library's, cloaked at the end of turn 1 at hex 0505; the Excelsior looks for
it from 0101, 6 hexes away on the map.
"""

from __future__ import annotations

from typing import Any

import pytest

from app.rules import BattleState, new_battle
from app.rules.core import RuleError
from app.rules.startrek.cloak import Cloak
from tests.rules.startrek.helpers import act, add, advance, advance_to, definition, player

BOP = player("kor-vaq")
ENEMY = player("excelsior")
EXCELSIOR_AT = {"hex": "0101", "facing": 1}


def cloaked(excelsior_at: dict[str, Any] | None = EXCELSIOR_AT, signature: int | None = 3) -> BattleState:
    """The Excelsior, the Enterprise (no cloak) and Kor'vaq, cloaked; turn 2's combat step, with the
    referee's signature set unless None."""
    state = new_battle("b5wars")
    state = add(state, definition("excelsior"), excelsior_at)
    state = add(state, definition("klingon-bird-of-prey"), {"hex": "0505", "facing": 3})
    state = add(state, definition("galaxy-class"), {"hex": "0909", "facing": 3})
    state = advance_to(state, "adjust_systems")
    state, _ = act(state, "startrek.cloak", {"ship": "kor-vaq"}, BOP)
    state = advance_to(state, "combat", turn=2)
    if signature is not None:
        state, _ = act(state, "startrek.set_signature", {"ship": "kor-vaq", "signature": signature})
    return state


def detect(state: BattleState, ew: int, rng: int | None) -> tuple[BattleState, list[Any]]:
    payload: dict[str, Any] = {"detector": "excelsior", "target": "kor-vaq", "ew": ew}
    if rng is not None:
        payload["range"] = rng
    return act(state, "startrek.detect_cloak", payload, ENEMY)


def rule(
    state: BattleState, detected: bool, target: str = "kor-vaq", attempt: int = 0
) -> tuple[BattleState, list[Any]]:
    return act(state, "startrek.rule_detection", {"target": target, "attempt": attempt, "detected": detected})


def refusal(call: Any) -> tuple[str | None, str]:
    with pytest.raises(RuleError) as err:
        call()
    return err.value.field, err.value.message


def test_ST_23_the_referee_sets_a_signature_only_the_referee_reads() -> None:
    state = cloaked(signature=None)
    state, (event,) = act(state, "startrek.set_signature", {"ship": "kor-vaq", "signature": 3})
    assert (event.kind, event.ship, event.visibility, event.text) == (
        "cloak_signature",
        "kor-vaq",
        "referee",
        "The referee sets Kor'vaq's cloak signature to 3 (ST-23).",
    )
    no_cloak = {"ship": "excelsior", "signature": 3}
    assert refusal(lambda: act(state, "startrek.set_signature", no_cloak)) == (
        "ship",
        "Excelsior has no cloaking device",
    )


def test_ST_23_an_attempt_is_the_detectors_own_and_records_the_signature() -> None:
    """EW 10 at range 6 (typed, and the map's too) + signature 3 = 9: detected, suggested; the attempt
    keeps the signature it was judged against."""
    state, (attempt, advice) = detect(cloaked(), 10, 6)
    assert (attempt.kind, attempt.ship, attempt.visibility, attempt.text, attempt.hidden_text) == (
        "cloak_detection_attempt",
        "excelsior",
        "owner",
        "Excelsior puts 10 EW on detecting Kor'vaq at range 6. The referee rules (ST-23).",
        "Excelsior searches for a cloaked ship.",
    )
    assert (attempt.data["target"], attempt.data["attempt"]) == ("kor-vaq", 0)
    assert (advice.kind, advice.ship, advice.visibility, advice.data) == (
        "cloak_detection_suggestion",
        "kor-vaq",
        "referee",
        {"target": "kor-vaq", "attempt": 0, "suggested": True},
    )
    assert advice.text == (
        "For the referee — attempt 0 by Excelsior: suggested: EW 10 vs range 6 from the map + signature 3 "
        "→ detected (ST-23)."
    )
    (recorded,) = Cloak.model_validate(state.ships["kor-vaq"].parts["cloak"]).attempts
    assert (recorded.signature, recorded.range, recorded.map_range, recorded.suggested) == (3, 6, 6, True)


def test_ST_23_no_suggestion_before_the_signature_is_set() -> None:
    _, (_, advice) = detect(cloaked(signature=None), 8, 4)
    assert (
        advice.text
        == "For the referee — attempt 0 by Excelsior: the referee has not set its signature yet (ST-23)."
    )


def test_ST_23_a_detector_off_the_map_is_judged_on_the_range_it_entered() -> None:
    """The Excelsior has no hex: the suggestion uses the 4 she typed; EW 8 > 4 + 3."""
    _, (_, advice) = detect(cloaked(excelsior_at=None), 8, 4)
    assert advice.text == (
        "For the referee — attempt 0 by Excelsior: suggested: EW 8 vs range 4 as entered (the map does not "
        "place both ships) + signature 3 → detected (ST-23)."
    )


def test_ST_23_refusals_name_their_fields() -> None:
    state = cloaked()
    ask = {"detector": "excelsior", "target": "nobody", "ew": 8, "range": 4}
    assert refusal(lambda: act(state, "startrek.detect_cloak", ask, ENEMY)) == (
        "target",
        "no ship 'nobody' in this battle",
    )
    ask = {**ask, "target": "enterprise"}
    assert refusal(lambda: act(state, "startrek.detect_cloak", ask, ENEMY)) == (
        "target",
        "Enterprise has no cloaking device",
    )
    state, _ = detect(state, 8, 4)
    assert refusal(lambda: rule(state, True, target="nobody")) == (
        "target",
        "no ship 'nobody' in this battle",
    )
    assert refusal(lambda: rule(state, True, target="excelsior")) == (
        "target",
        "Excelsior has no cloaking device",
    )
    assert refusal(lambda: rule(state, True, attempt=1)) == ("attempt", "no detection attempt 1 on Kor'vaq")
    ruled, _ = rule(state, False)
    assert refusal(lambda: rule(ruled, True)) == ("attempt", "that attempt has already been ruled")


def test_ST_23_not_found_is_told_to_the_detector_alone() -> None:
    state, _ = detect(cloaked(), 8, 4)
    _, (event,) = rule(state, False)
    assert (event.kind, event.ship, event.visibility, event.text, event.hidden_text) == (
        "cloak_detection",
        "excelsior",
        "owner",
        "Excelsior does not find Kor'vaq (referee's ruling, ST-23).",
        "Excelsior finds nothing.",
    )


def test_ST_23_a_ruling_after_the_detector_left_names_it_by_id() -> None:
    state, _ = detect(cloaked(), 8, 4)
    state, _ = act(state, "ship.remove", {"ship": "excelsior"})
    _, (event,) = rule(state, False)
    assert (event.ship, event.text) == (None, "excelsior does not find Kor'vaq (referee's ruling, ST-23).")


def test_ST_23a_found_is_public_and_filed_under_the_cloaked_ship() -> None:
    state, _ = detect(cloaked(), 8, 4)
    state, (event,) = rule(state, True)
    assert (event.kind, event.ship, event.visibility) == ("cloak_detection", "kor-vaq", "public")
    state, events = advance(state)  # the detection opens this turn only: at turn 3 it is hidden again
    while state.clock.turn == 2:
        state, events = advance(state)
    (hidden,) = [e for e in events if e.kind == "cloak_hidden"]
    assert (hidden.ship, hidden.text) == ("kor-vaq", "The cloaked Kor'vaq is lost from sight again.")


def test_ST_22_a_ship_that_decloaked_before_the_ruling_is_no_longer_found() -> None:
    state, _ = detect(cloaked(), 8, 4)
    state = advance_to(state, "adjust_systems")
    state, _ = act(state, "startrek.decloak", {"ship": "kor-vaq"}, BOP)
    assert refusal(lambda: rule(state, True)) == ("target", "Kor'vaq is no longer cloaked")


def cloak_of(state: BattleState) -> Cloak:
    return Cloak.model_validate(state.ships["kor-vaq"].parts["cloak"])


def test_ST_21_cloaking_is_dated_and_filed_under_the_ship() -> None:
    state = new_battle("b5wars")
    state = add(state, definition("klingon-bird-of-prey"), {"hex": "0505", "facing": 3})
    state = advance_to(state, "adjust_systems")
    state, (event,) = act(state, "startrek.cloak", {"ship": "kor-vaq"}, BOP)
    assert (event.kind, event.ship) == ("cloak", "kor-vaq")
    assert event.text == (
        "Kor'vaq cloaks and leaves the board; it may not fire and its shields absorb nothing while cloaked "
        "(ST-21, ST-22)."
    )
    assert cloak_of(state).cloaked_turn == 1


def test_ST_22_decloaking_ends_a_detection_and_records_the_position() -> None:
    """Found in turn 2 (ST-23a), Kor'vaq decloaks at its end: it is no longer a detected cloaked ship,
    and the decloak names where it stands."""
    state, _ = detect(cloaked(), 8, 4)
    state, _ = rule(state, True)
    state = advance_to(state, "adjust_systems")
    state, (event,) = act(state, "startrek.decloak", {"ship": "kor-vaq"}, BOP)
    assert (event.kind, event.ship, event.data) == (
        "decloak",
        "kor-vaq",
        {"position": {"hex": "0505", "facing": 3}},
    )
    assert (cloak_of(state).detected, cloak_of(state).revealed) == (False, False)
