"""Rules every game system shares: the ship sheet and damage (GEN-03, GEN-04), the turn clock
(GEN-01), referee set-up and overrides, boarding and raids."""

from app.rules.figures import Turning
from app.rules.generic import actions, boarding, damage, ending, sheet, timing
from app.rules.ruleset import gather

RULESET = gather(
    "generic",
    "Every battle",
    [sheet, actions, damage, boarding, timing],
    ends=ending.battle_over,
    check_options=ending.check_options,
    turning=(Turning("ship_removed", "removed", "Removed"),),  # the referee takes a ship off the table
)
