"""The one per-viewer read of a campaign: what a player of one side may read of another's fleet,
checked over every entry kind, before and after a rewind, with rosters secret and open."""

from __future__ import annotations

import json
from typing import Any

import pytest

from app.models import CampaignEvent, CampaignSeat
from app.services.campaigns.fold import fold
from app.services.campaigns.view import campaign_view, log_view
from tests.helpers import simple_ship

SECRET_NAME = "Nightshade"


def _rows(secret: bool) -> list[CampaignEvent]:
    sneaky = {**simple_ship(SECRET_NAME), "side": "Red"}
    plain = {**simple_ship("Hawk"), "side": "Blue"}
    data: list[tuple[str, dict[str, Any]]] = [
        ("campaign_created", {"name": "C", "system": "b5wars", "options": {"secret_rosters": secret}}),
        ("side_added", {"side": "Blue"}),
        ("side_added", {"side": "Red"}),
        ("ship_added", {"ship": "s1", "side": "Blue", "player": None, "points": 40, "definition": plain}),
        ("ship_added", {"ship": "s2", "side": "Red", "player": None, "points": 977, "definition": sneaky}),
        (
            "ruling",
            {
                "ship": "s2",
                "parts": sneaky["parts"],
                "reason": "cloaked refit",
                "text": f"{SECRET_NAME}: refit",
            },
        ),
        ("rewound", {"to": 4}),
    ]
    return [
        CampaignEvent(campaign_id="c", seq=i, kind=k, actor="Referee", battle_id=None, data=d)
        for i, (k, d) in enumerate(data, start=1)
    ]


def _seen(rows: list[CampaignEvent], seat: CampaignSeat, upto: int | None = None) -> str:
    state = fold(((r.seq, r.kind, r.data) for r in rows), upto)
    return json.dumps(campaign_view(state, seat)) + json.dumps(
        log_view([r for r in rows if upto is None or r.seq <= upto], state, seat)
    )


@pytest.mark.parametrize("upto", [5, 6, None])
def test_a_secret_roster_leaks_nothing_to_the_other_side_before_or_after_a_rewind(upto: int | None) -> None:
    rows = _rows(secret=True)
    blue = CampaignSeat(id="p1", name="Ann", role="player", side="Blue")
    seen = _seen(rows, blue, upto)
    for secret in (SECRET_NAME, "977", "cloaked", '"s2"'):
        assert secret not in seen, (secret, upto)
    assert "Hawk" in seen
    red = CampaignSeat(id="p2", name="Bob", role="player", side="Red")
    if upto is not None:  # before the rewind Red reads its own ship whole, refit and all
        assert SECRET_NAME in _seen(rows, red, upto)


def test_open_rosters_show_names_and_records_but_never_another_sides_parts_or_repairs() -> None:
    rows = _rows(secret=False)
    blue = CampaignSeat(id="p1", name="Ann", role="player", side="Blue")
    state = fold(((r.seq, r.kind, r.data) for r in rows), 6)
    view = campaign_view(state, blue)
    other = next(s for s in view["ships"] if s["side"] == "Red")
    assert (
        other["name"] == SECRET_NAME
        and "parts" not in other
        and "repairs" not in other
        and "definition" not in other
    )
    assert "cloaked" not in json.dumps(log_view(rows[:6], state, blue))
    referee = CampaignSeat(id="r", name="Referee", role="referee", side="")
    assert f"{SECRET_NAME}: refit" in json.dumps(log_view(rows[:6], state, referee))
