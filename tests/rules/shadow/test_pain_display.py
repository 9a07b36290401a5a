"""The pain template draws the rules' own tables (SH-03 … SH-16): its boxes, bands, moods, damage
band and card badge come from shadow/display.py, which reads track.py — never a copy."""

from __future__ import annotations

import re

from app.rules.shadow import display
from app.rules.shadow.track import BANDS, DOABLE, MOODS, PAIN_MAX, REACTIONS, band_for, reaction_for
from app.rules.views import Viewer
from tests.helpers import part_context

from .support import KER, PLAYER, act, at_impulse, battle, end_impulse, hit
from .test_pain_template import render


def shown(state, viewer: Viewer = PLAYER) -> dict:
    return part_context(state, KER, "pain", viewer)["display"][KER]["pain"]


def test_SH_06_track_boxes_read_the_reaction_chart() -> None:
    """Every box of the drawn track names the reaction the chart gives that pain level."""
    html = render(battle(level=9), PLAYER)
    boxes = dict(re.findall(r"<title>Pain box (\d+), reaction (\w+)", html))
    assert {int(n): r for n, r in boxes.items()} == {n: reaction_for(n) for n in range(PAIN_MAX + 1)}
    bands = display.track_bands()
    assert [b["name"] for b in bands] == list(REACTIONS)
    assert all(reaction_for(b["low"]) == reaction_for(b["high"]) == b["name"] for b in bands)


def test_SH_06_card_mood_is_the_charts_word() -> None:
    for reaction in REACTIONS:
        assert MOODS[reaction].endswith(display.mood(reaction))
    state = at_impulse(level=5)
    state, _ = hit(state, 250)
    state, _ = end_impulse(state, [6, 1, 6])
    assert shown(state)["mood"] == display.mood(state.ships[KER].parts["pain"]["reaction"])


def test_SH_03_SH_04_damage_band_and_scale_come_from_the_bands() -> None:
    for total in (0, 24, 25, 99, 100, 217, 250, 900):
        state, _ = hit(at_impulse(), total) if total else (at_impulse(), [])
        values = shown(state)
        band = band_for(total)
        assert values["band_label"] == (band.label if band else display.NO_CHECK)
        assert values["hot"] is (band is not None)
        html = render(state, PLAYER)
        assert f"band {values['band_label']}" in html
    assert shown(at_impulse())["scale"] == sorted(b.floor for b in BANDS)


def test_SH_07_only_deeds_get_a_done_form_and_the_badge_follows_the_track() -> None:
    state = at_impulse(level=5)
    state, _ = hit(state, 250)
    state, _ = end_impulse(state, [6, 1, 6])
    values = shown(state)
    assert values["standing"] and all(d["doable"] is (d["kind"] in DOABLE) for d in values["standing"])
    track = state.ships[KER].parts["pain"]
    assert values["badge"]["text"] == f"Pain {track['level']} · {track['reaction']}"
    assert values["badge"]["class"].endswith("pain-band-" + track["reaction"].lower())


def test_SH_14_reduction_is_open_once_a_turn_with_pain_to_reduce() -> None:
    assert shown(battle(level=0))["may_reduce"] is False
    state = battle(level=6)
    assert shown(state)["may_reduce"] is True
    state, _ = act(state, "shadow.reduce_pain", {"ship": KER}, [1], actor=PLAYER)
    assert shown(state)["may_reduce"] is False and shown(state)["reduced_this_turn"] is True
