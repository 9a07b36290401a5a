"""Star Fleet Battles (impulse procedure): Energy Allocation, 32 impulses, end of turn."""

from app.rules.system import GameSystem, Step

SFB = GameSystem(
    key="sfb",
    name="Star Fleet Battles (impulses)",
    fleets=frozenset({"sfb"}),
    rulesets=("generic", "shadow"),
    board="hex",
    steps=(
        Step("energy_allocation", "Energy Allocation", "EA", frozenset({"allocation", "impulse_end"})),
        Step("impulse", "Impulse", "I", frozenset({"fire", "impulse_end"}), repeats=32, acts="anyone"),
        Step("end_of_turn", "End of turn", "End", frozenset({"impulse_end"}), acts="anyone"),
    ),
)
