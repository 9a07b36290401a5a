"""The map feeds the rules through the service (`actions.submit`): ships moved onto hexes
with facings, a hit entered without a direction takes it from the map (GEN-03, ST-05, ST-06), a
spline is refused with nothing changed (ST-10), and the log alone rebuilds the snapshot."""

from __future__ import annotations

from app.services.errors import Invalid
from app.services.platform import Platform
from tests.service.test_startrek_service import demo_game


async def test_GEN_03_ST_05_the_direction_of_an_entered_hit_comes_from_the_map(platform: Platform) -> None:
    game = await demo_game(platform)
    await game.advance_to("movement", 1)
    await game.do("kirk", "ship.move", {"ship": "excelsior", "position": {"hex": "0505", "facing": 1}})
    await game.do("kirk", "ship.move", {"ship": "thomas-paine", "position": {"hex": "0905", "facing": 1}})
    await game.do("tomalak", "ship.move", {"ship": "haakona", "position": {"hex": "0305", "facing": 2}})
    await game.advance_to("combat", 1)
    texts = await game.texts(
        "tomalak", "damage.apply", {"target": "excelsior", "source": "haakona", "amount": 12}
    )
    assert texts == [
        "Haakona hits Excelsior for 12 (Port, from the map): 12 absorbed by shields.",
        "Excelsior: Port shield absorbs all 12 (30/30 → 18/30); nothing reaches the ship.",
    ]
    assert await game.shields("excelsior") == {"Fore": 40, "Starboard": 30, "Aft": 30, "Port": 18}
    # ST-10: the New Orleans (Thomas Paine) has fore and aft halves; 0505 is abeam of it, on the spline.
    await game.refused(
        "kirk",
        "damage.apply",
        {"target": "thomas-paine", "source": "excelsior", "amount": 5},
        Invalid,
        "direction",
        "fire from the map at 270° off Thomas Paine's nose is on a shield spline: the defender names one "
        "projection (Fore or Aft) as the direction; one unit's fire is never split (ST-10)",
    )
    await game.rebuilds()
