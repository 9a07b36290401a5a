"""Rules every game system shares: the ship sheet and damage (GEN-03, GEN-04), the turn clock
(GEN-01), referee set-up and overrides."""

import app.rules.generic.boarding  # noqa: F401  (boarding and raids; SH-17 refusals plug in)
from app.rules.generic import actions, damage, sheet  # noqa: F401
