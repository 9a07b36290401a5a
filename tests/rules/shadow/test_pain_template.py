"""The pain partial (SH-16): track, reaction card, damage scale, and the reduction form (SH-14) only
for the commander or referee during Energy Allocation. Rendered from real rule state."""

from __future__ import annotations

import re

from app.rules.state import BattleState
from app.rules.views import Viewer
from tests.helpers import render_part

from .support import FED_PLAYER, KER, PLAYER, act, at_impulse, battle, end_impulse, hit, until_step


def render(state: BattleState, viewer: Viewer) -> str:
    return render_part(state, KER, "pain", viewer)[0]


def owner() -> Viewer:
    return PLAYER


def test_SH_16_track_boxes_marker_and_labels() -> None:
    state = at_impulse()
    state, _ = hit(state, 217)
    html = render(state, owner())
    assert 'aria-label="Pain 0 of 16, reaction ZERO"' in html
    assert "217</strong> damage to armour and internals · band 200–249" in html
    assert "most from Excalibur (217)" in html
    state, _ = end_impulse(state, [3, 3, 2])
    html = render(state, owner())
    assert 'aria-label="Pain 3 of 16, reaction ZERO"' in html
    assert html.count('class="pain-box pain-on pain-band-zero"') == 4
    assert html.count('class="pain-box pain-off"') == 13
    assert re.search(r'<text x="72" y="31" class="pain-marker" aria-hidden="true">▲</text>', html)
    assert [
        name for name in ("ZERO", "ONE", "TWO", "THREE", "FOUR", "FIVE", "DEATH") if f">{name}</text>" in html
    ] == ["ZERO", "ONE", "TWO", "THREE", "FOUR", "FIVE", "DEATH"]
    assert 'viewBox="0 0 348 46" width="100%"' in html
    assert "Last checked: turn 1 impulse 1, 217 damage." in html


def test_SH_16_reaction_card_with_obligations_and_expired_ones() -> None:
    state = at_impulse(level=5)
    state, _ = hit(state, 250)
    state, _ = end_impulse(state, [6, 1, 6])
    html = render(state, owner())
    assert html.count('class="pain-box pain-on pain-band-one"') == 2
    assert html.count('class="pain-box pain-on pain-band-two"') == 1
    assert "<strong>Reaction TWO</strong> · angered" in html
    assert "must target Excalibur next turn (turn 2)" in html
    assert "Most damage (reaction): Excalibur (250)" in html
    state = until_step(until_step(state, "energy_allocation"), "impulse", 1)
    state = until_step(state, "energy_allocation")
    html = render(state, owner())
    assert (
        '<s>must target Excalibur next turn (turn 2)</s> <span class="pain-tag">expired</span>: end of turn 2'
        in html
    )


def test_SH_14_reduction_form_for_the_commander_in_energy_allocation_only() -> None:
    state = battle(level=6)
    html = render(state, owner())
    assert '<input type="hidden" name="action_type" value="shadow.reduce_pain">' in html
    assert '<input type="hidden" name="p.ship" value="ker">' in html
    assert '<form method="post" action="/battles/b1/actions"' in html
    assert "Roll pain reduction" not in render(state, FED_PLAYER)
    assert "Roll pain reduction" in render(state, Viewer("ref", "referee", frozenset()))
    state, _ = act(state, "shadow.reduce_pain", {"ship": KER}, [1], actor=PLAYER)
    html = render(state, owner())
    assert "Roll pain reduction" not in html and "Pain reduction rolled this turn." in html


def test_SH_16_user_text_is_escaped() -> None:
    state = at_impulse(level=3)  # pain 3 → 5: ONE, a reaction that records who did most damage
    state, _ = act(
        state,
        "ship.add",
        {
            "definition": {
                "name": "<b>X</b>",
                "system": "sfb",
                "parts": {"sheet": {"sections": [{"name": "H", "structure_max": 9}]}},
            }
        },
    )
    state, _ = hit(state, 250, source="b-x-b")
    state, _ = end_impulse(state, [6, 1, 6])
    html = render(state, owner())
    assert "&lt;b&gt;X&lt;/b&gt;" in html and "<b>X</b>" not in html
