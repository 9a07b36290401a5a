"""Send what changed, inside a region: the hunks the hub sends for a region the page holds an
older copy of rebuild exactly the new region, on the page's side (UTF-16 offsets, as JavaScript
counts) — for any texts, and for the ship cards and referee tools of a real frame."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from app.realtime.diff import SMALL, apply, hunks, patch

HTML = st.text(alphabet=st.sampled_from(list('<>/=" abcdiv-0123456789\n') + ["é", "🔒", "⚑"]), max_size=600)


@given(HTML, HTML)
def test_the_hunks_rebuild_the_new_text_from_the_old(old: str, new: str) -> None:
    length, ops = patch(old, new)
    assert apply(old, length, ops) == new


@given(HTML, HTML)
def test_hunks_are_in_order_and_never_overlap(old: str, new: str) -> None:
    at = 0
    for start, end, _ in hunks(old, new):
        assert at <= start <= end <= len(old)
        at = end


def test_two_changes_far_apart_are_two_small_hunks() -> None:
    row = "".join(f'<li class="box" data-n="{i}">{i}</li>\n' for i in range(400))
    new = row.replace('data-n="3">3<', 'data-n="3">X<').replace('data-n="390">390<', 'data-n="390">Y<')
    found = hunks(row, new)
    assert [text for _, _, text in found] == ["X", "Y"]
    assert len(row) > 10 * SMALL


def test_offsets_count_utf16_units_as_the_page_does() -> None:
    old = "🔒 private <b>1</b>"
    new = "🔒 private <b>2</b>"
    length, ops = patch(old, new)
    assert length == len(old) + 1  # the lock is two UTF-16 units
    assert ops == [[len(old.encode("utf-16-le")) // 2 - 5, len(old.encode("utf-16-le")) // 2 - 4, "2"]]


def test_a_copy_of_another_length_is_refused() -> None:
    length, ops = patch("<p>1</p>", "<p>2</p>")
    assert apply("<p>10</p>", length, ops) is None
