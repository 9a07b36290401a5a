"""Which impulses a ship moves in (SFB's 32-impulse turn), by the proportional rule: a ship of speed
S moves in impulse i of N when ⌊i·S/N⌋ > ⌊(i−1)·S/N⌋, so its S hexes are spread as evenly as whole
impulses allow and the last one lands on impulse N. Above speed N (a Shadow may reach 50, SH-08) a
ship moves more than one hex in some impulses. Pure arithmetic: the map's impulse chart reads it
(docs/map.md); where it departs from the printed SFB Impulse Chart is in docs/decisions.md."""

from __future__ import annotations

IMPULSES = 32  # impulses in an SFB turn


def _check(speed: int, impulses: int) -> None:
    if speed < 0:
        raise ValueError(f"speed {speed} is below 0")
    if impulses < 1:
        raise ValueError(f"a turn of {impulses} impulses")


def hexes_in_impulse(speed: int, impulse: int, impulses: int = IMPULSES) -> int:
    """How many hexes a ship of this speed moves in impulse `impulse` (1…impulses):
    ⌊i·S/N⌋ − ⌊(i−1)·S/N⌋."""
    _check(speed, impulses)
    if not 1 <= impulse <= impulses:
        raise ValueError(f"impulse {impulse} is not 1–{impulses}")
    return impulse * speed // impulses - (impulse - 1) * speed // impulses


def moves_in_impulse(speed: int, impulse: int, impulses: int = IMPULSES) -> bool:
    """Whether a ship of this speed moves in this impulse."""
    return hexes_in_impulse(speed, impulse, impulses) > 0


def movement_chart(speed: int, impulses: int = IMPULSES) -> list[int]:
    """Hexes moved in each impulse 1…impulses, in order; they add up to the speed."""
    _check(speed, impulses)
    return [hexes_in_impulse(speed, i, impulses) for i in range(1, impulses + 1)]
