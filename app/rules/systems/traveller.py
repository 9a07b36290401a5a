"""Traveller High Guard rounds: secret orders, manoeuvre, the combat-action loop in initiative order,
ship actions, end of round."""

from app.rules.system import GameSystem, Step

TRAVELLER = GameSystem(
    key="traveller",
    name="Traveller High Guard",
    fleets=frozenset({"traveller"}),
    rulesets=("generic", "high_guard"),
    board="range_bands",
    steps=(
        Step("orders", "Orders", "Orders", frozenset({"orders"})),
        Step("manoeuvre", "Manoeuvre", "Manoeuvre", frozenset({"movement"})),
        Step("combat", "Combat", "Fire", frozenset({"fire"}), acts="initiative"),
        Step("ship_action", "Ship action", "Ship action", frozenset({"ship_action"}), acts="anyone"),
        Step("end_of_round", "End of round", "End", frozenset({"round_end"}), acts="anyone"),
    ),
)
