"""Traveller High Guard capital-ship combat (TR-01 … TR-27, GEN-05).

Importing the package registers the `hg_ship` and `flight` parts, every `traveller.*` action and
the round hooks (fires, frozen watch, orders reveal, end-of-round effects).
"""

from app.rules.traveller import (  # noqa: F401  (each import registers its rules)
    barrage,
    crew,
    criticals,
    damage,
    flights,
    initiative,
    missiles,
    movement,
    orders,
    repairs,
    ship,
    spinal,
)
