"""A part saved through the parse memo (app/rules/parsed.py) is stored as plain JSON, the shape the
database keeps and copies are rebuilt from, whether or not an action is running."""

from __future__ import annotations

from pydantic import BaseModel

from app.rules.parsed import parse_once, parsed, store
from app.rules.state import Ship


class Projection(BaseModel):
    """A shield projection's arc, degrees off the nose (ST-05), as a model holds it: a pair."""

    arc: tuple[int, int] = (315, 45)


def test_ST_05_a_saved_projection_arc_is_stored_as_a_json_list():
    ship = Ship(id="x", name="Excelsior", system="b5wars")
    store(ship, "fore", Projection())
    assert ship.parts["fore"] == {"arc": [315, 45]}
    with parse_once():
        saved = Projection(arc=(45, 135))
        store(ship, "starboard", saved)
        assert ship.parts["starboard"] == {"arc": [45, 135]}
        assert parsed(ship, "starboard", Projection) is saved  # the save's model is the parse
