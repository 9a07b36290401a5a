"""The advanced photon torpedo launcher's refusals (ST-25): a launcher the ship does not have is
refused naming the ones it has, and a ship with no such launcher is refused on the ship.

The seed (001): the advanced photon torpedo launcher was "first testbedded on the New Orleans-class";
the library's Thomas Paine carries one Advanced Photon Launcher, the Excelsior none.
"""

from __future__ import annotations

from typing import Any

import pytest

from app.rules.core import RuleError
from tests.rules.startrek.helpers import act, battle, definition, player


def refused(state: Any, ship: str, launcher: str) -> RuleError:
    with pytest.raises(RuleError) as err:
        act(state, "startrek.load_torpedoes", {"ship": ship, "launcher": launcher}, player(ship))
    return err.value


def test_ST_25_an_unknown_launcher_is_refused_naming_the_ships_launchers() -> None:
    """ST-25: a Thomas Paine refitted with a second, Aft Photon Launcher; a load into a "Dorsal
    Launcher" is refused on `launcher`, naming both it has."""
    data = definition("new-orleans")
    data["parts"]["photon_launcher"]["launchers"].append({"name": "Aft Photon Launcher"})
    err = refused(battle(data), "thomas-paine", "Dorsal Launcher")
    assert (err.field, err.message) == (
        "launcher",
        "no launcher 'Dorsal Launcher' (launchers: Advanced Photon Launcher, Aft Photon Launcher)",
    )


def test_ST_25_a_ship_without_the_launcher_is_refused_on_the_ship() -> None:
    """ST-25: the Excelsior carries no advanced photon launcher."""
    err = refused(battle("excelsior"), "excelsior", "Advanced Photon Launcher")
    assert (err.field, err.message) == ("ship", "Excelsior has no advanced photon launcher")
