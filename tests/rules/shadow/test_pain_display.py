"""The pain template shows the seed's tables (SH-03 … SH-16): its boxes, bands, moods, damage band and
card badge are checked against the seed's chart written out here — never against the rules' own
constants or functions, so a wrong table in the rules fails these tests."""

from __future__ import annotations

import re

import pytest

from app.rules.shadow import display
from app.rules.views import Viewer
from tests.helpers import part_context

from .support import KER, PLAYER, act, at_impulse, battle, end_impulse, hit
from .test_pain_template import render

# Seed 000, "Reaction Chart" (catalogue SH-06: 0–4 ZERO, 5–6 ONE, 7–8 TWO, 9–11 THREE, 12–13 FOUR,
# 14–15 FIVE, 16 DEATH; the track runs 0–16, SH-01).
CHART = [
    ("ZERO", 0, 4),
    ("ONE", 5, 6),
    ("TWO", 7, 8),
    ("THREE", 9, 11),
    ("FOUR", 12, 13),
    ("FIVE", 14, 15),
    ("DEATH", 16, 16),
]


def shown(state, viewer: Viewer = PLAYER) -> dict:
    return part_context(state, KER, "pain", viewer)["display"][KER]["pain"]


def test_SH_06_track_boxes_read_the_reaction_chart() -> None:
    """Every box of the drawn track names the reaction the chart gives that pain level."""
    html = render(battle(level=9), PLAYER)
    boxes = {int(n): r for n, r in re.findall(r"<title>Pain box (\d+), reaction (\w+)", html)}
    assert boxes == {n: name for name, low, high in CHART for n in range(low, high + 1)}
    assert len(boxes) == 17  # SH-16: 17 boxes, 0 to 16
    bands = display.track_bands()
    assert [(b["name"], b["low"], b["high"]) for b in bands] == CHART


@pytest.mark.parametrize(
    ("reaction", "word"),
    [  # seed 000, Reaction Chart: "Shadow grins and bears it", "'flinches'", "is 'angered'", …
        ("ZERO", "grins and bears it"),
        ("ONE", "flinches"),
        ("TWO", "angered"),
        ("THREE", "enraged"),
        ("FOUR", "fearful"),
        ("FIVE", "panicked"),
        ("DEATH", "dies of shock"),  # seed 000: at 16 "the Shadow ship dies from shock"
    ],
)
def test_SH_06_card_mood_is_the_charts_word(reaction: str, word: str) -> None:
    assert display.mood(reaction) == word


def test_SH_06_card_shows_the_mood_of_the_new_level() -> None:
    # Pain 5, 250 damage (band 250+: rise on 1-6, D6+1): rise roll 6, amount 1 + 1 = 2 → pain 7;
    # reaction roll 6 (1-6) succeeds → chart 7-8 TWO, 'angered' (seed 000 chart, SH-05, SH-06).
    state = at_impulse(level=5)
    state, _ = hit(state, 250)
    state, _ = end_impulse(state, [6, 1, 6])
    assert shown(state)["mood"] == "angered"
    assert "<strong>Reaction TWO</strong> · angered" in render(state, PLAYER)


@pytest.mark.parametrize(
    ("total", "label"),
    [  # seed 000 damage chart columns: 250+ 200-249 150-199 100-149 50-99 25-49; SH-03: under 25 no check
        (0, "under 25, no check"),
        (24, "under 25, no check"),
        (25, "25–49"),
        (49, "25–49"),
        (50, "50–99"),
        (99, "50–99"),
        (100, "100–149"),
        (149, "100–149"),
        (150, "150–199"),
        (199, "150–199"),
        (200, "200–249"),
        (217, "200–249"),  # the seed's example: 217 points is a rise on 1-5
        (249, "200–249"),
        (250, "250+"),
        (900, "250+"),
    ],
)
def test_SH_03_SH_04_damage_band_comes_from_the_seeds_chart(total: int, label: str) -> None:
    state, _ = hit(at_impulse(), total) if total else (at_impulse(), [])
    values = shown(state)
    assert values["band_label"] == label
    assert values["hot"] is (total >= 25)
    assert f"band {label}" in render(state, PLAYER)


def test_SH_03_damage_scale_is_marked_at_the_seeds_thresholds() -> None:
    assert shown(at_impulse())["scale"] == [25, 50, 100, 150, 200, 250]  # seed 000 damage chart


def test_SH_07_only_deeds_get_a_done_form_and_the_badge_follows_the_track() -> None:
    # Pain 10, 250 damage: rise roll 6, amount 1 + 1 = 2 → pain 12; reaction roll 6 → FOUR
    # (seed 000 chart 12-13). SH-11: a HET away at once (a deed to mark done) and evasion plotting
    # (a restriction that expires at the end of the turn: no Done form).
    state = at_impulse(level=10)
    state, _ = hit(state, 250)
    state, _ = end_impulse(state, [6, 1, 6])
    values = shown(state)
    assert [(d["kind"], d["doable"]) for d in values["standing"]] == [("het_away", True), ("evasion", False)]
    assert values["badge"] == {"text": "Pain 12 · FOUR", "class": "pain-badge pain-band-four"}
    duties = re.findall(r'class="pain-duty">(.*?)</li>', render(state, PLAYER), re.S)
    assert [">Done</button>" in d for d in duties] == [True, False]


def test_SH_14_reduction_is_open_once_a_turn_with_pain_to_reduce() -> None:
    assert shown(battle(level=0))["may_reduce"] is False
    state = battle(level=6)
    assert shown(state)["may_reduce"] is True
    state, _ = act(state, "shadow.reduce_pain", {"ship": KER}, [1], actor=PLAYER)
    assert shown(state)["may_reduce"] is False and shown(state)["reduced_this_turn"] is True
