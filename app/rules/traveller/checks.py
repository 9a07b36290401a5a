"""The Traveller standard check (GEN-05) and how DMs are written in the log.

Every crew roll (repairs, Discipline against fire, Tactics, Pilot) is 2D + DMs against 8+, with
Effect = total − 8. Keeping it in one place means every log line spells its DMs out the same way.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.rules.core import Roll
from app.rules.dice import DiceSource

DM = tuple[str, int]


def signed(value: int) -> str:
    """A DM as the log writes it: 0, +2, −1 (true minus sign)."""
    if value == 0:
        return "0"
    return f"+{value}" if value > 0 else f"−{-value}"


def number(value: int) -> str:
    """A total as the log writes it: 7, 0, −2 (true minus sign, no plus)."""
    return f"−{-value}" if value < 0 else str(value)


def dm_text(dms: list[DM]) -> str:
    """' + Crew Skill +2 + strength −1' — each DM named, in the order it was added."""
    return "".join(f" + {label} {signed(value)}" for label, value in dms)


@dataclass
class Check:
    roll: Roll
    dms: list[DM]
    target: int

    @property
    def natural(self) -> int:
        return sum(self.roll.dice)

    @property
    def total(self) -> int:
        return self.roll.total

    @property
    def effect(self) -> int:
        return self.total - self.target

    @property
    def success(self) -> bool:
        return self.total >= self.target

    def sentence(self) -> str:
        verdict = "success" if self.success else "failure"
        return (
            f"2D {self.natural}{dm_text(self.dms)} = {self.total} vs {self.target}+ → {verdict}"
            f" (Effect {signed(self.effect)})"
        )


def standard_check(
    dice: DiceSource, purpose: str, dms: list[DM], *, ship: str | None = None, target: int = 8
) -> Check:
    """GEN-05: roll 2D + DMs; success on `target`+ (8+ unless the rule names another)."""
    total_dm = sum(value for _, value in dms)
    roll = dice.roll(2, 6, purpose, ship=ship, modifier=total_dm, target=f"{target}+")
    check = Check(roll, list(dms), target)
    roll.outcome = f"{'success' if check.success else 'failure'}, Effect {signed(check.effect)}"
    return check
