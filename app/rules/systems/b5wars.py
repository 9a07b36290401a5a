"""Babylon 5 Wars: initial actions (Ship Power), movement, combat, end of turn (Adjust Ship Systems).
Star Trek ships fly here by the Star Trek rules, and Shadows by their pain track."""

from app.rules.system import GameSystem, Step

B5WARS = GameSystem(
    key="b5wars",
    name="Babylon 5 Wars",
    fleets=frozenset({"b5wars", "sfb"}),
    rulesets=("generic", "shadow", "startrek"),
    board="hex",
    steps=(
        Step("ship_power", "Ship Power", "Power", frozenset({"allocation", "impulse_end"})),
        Step("movement", "Movement", "Move", frozenset({"movement"})),
        Step("combat", "Combat", "Fire", frozenset({"fire", "impulse_end"})),
        Step("adjust_systems", "Adjust Ship Systems", "Adjust", frozenset({"adjust", "impulse_end"})),
    ),
)
