"""Counter labels (the map): short, and unique within the battle, so two "… Cruiser"s are told
apart; the full name stays in the counter's accessible name and title (the browser test)."""

from __future__ import annotations

from app.rules.map_view import labels


def test_two_cruisers_are_told_apart_by_initials() -> None:
    got = labels({"fhc": "Federation Heavy Cruiser", "sc": "Shadow Cruiser", "hawk": "Hawk"})
    assert got == {"fhc": ("FHC", "F.H. Cruiser"), "sc": ("SC", "S. Cruiser"), "hawk": ("HA", "Hawk")}


def test_a_name_no_other_shares_keeps_its_short_label() -> None:
    assert labels({"x": "Excelsior", "h": "Haakona", "t": "Thomas Paine"}) == {
        "x": ("EX", "Excelsior"),
        "h": ("HA", "Haakona"),
        "t": ("TP", "Paine"),
    }


def test_the_same_name_twice_is_numbered_and_no_code_is_used_twice() -> None:
    got = labels({"a": "Shadow Cruiser", "b": "Shadow Cruiser", "c": "SC2", "d": "Shadow Cruiser"})
    assert got["a"] == ("SC", "S. Cruiser") and got["b"] == ("SC2", "S. Cruiser 2")
    codes = [code for code, _ in got.values()]
    names = [label for _, label in got.values()]
    assert len(set(codes)) == len(codes) and len(set(names)) == len(names), got
