"""What the hub keeps of a page's regions (`hub.Held`): long regions packed, and a region known to
be the one the page holds exactly when it is — by length and hash, or whole when hashes are not
keyed per process — whatever its characters (Latin-1, two-byte, astral)."""

from __future__ import annotations

import pytest

from app.realtime import hub
from app.realtime.hub import PACK_FROM, Drawn, Held, Sent

REGIONS = [
    "<p>short</p>",
    "<div>" + "x" * PACK_FROM + "</div>",
    "<div>" + "− ■ ✓ ⚑ " * PACK_FROM + "</div>",  # two bytes a character as a str
    "<div>🚀 " + "y" * PACK_FROM + "</div>",  # astral: four
]


@pytest.mark.parametrize("text", REGIONS)
@pytest.mark.parametrize("keyed", [True, False])
def test_a_held_region_gives_back_its_text_and_knows_it_alone(
    text: str, keyed: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(hub, "_KEYED_HASH", keyed)
    held = Held.of(text)
    assert isinstance(held.packed, bytes) == (len(text) >= PACK_FROM)
    assert held.text() == text
    assert held.holds("".join(list(text)))  # an equal text, another string
    changed = text[:-7] + "!" + text[-6:]  # as long, one character different
    assert len(changed) == len(text) and not held.holds(changed)
    assert not held.holds(text + " ")


def test_a_page_is_sent_only_the_regions_it_does_not_hold_and_its_record_holds_them_after() -> None:
    first = Drawn.of([("#a", REGIONS[1]), ("#b", REGIONS[2]), ("+#log", "<li>1</li>")])
    frame, record = first.frame(Sent(), {"seq": 1}, patches=True)
    assert frame is not None and record.text("#a") == REGIONS[1] and record.text("#b") == REGIONS[2]
    second = Drawn.of([("#a", REGIONS[1]), ("#b", REGIONS[3]), ("+#log", "<li>2</li>")])
    assert second.fresh(record.regions) == ("#b", "+#log")
    frame, after = second.frame(record, {"seq": 2}, patches=True)
    assert frame is not None and after.regions["#a"] is record.regions["#a"]  # kept, not packed again
    assert after.text("#b") == REGIONS[3]
