"""TR-22 without dead ends: the repair form offers only the attempts the rules would take now, one
per (section, system), and says why a damaged system cannot be tried."""

from __future__ import annotations

from app.rules.views import viewer_for
from tests.helpers import render_part
from tests.rules.traveller.helpers import TIGRESS_ACTOR, act, advance_to, battle, capital


def at_ship_action():
    state = battle(capital("Kestrel"), capital("Tigress"), owners=("p-kestrel", "p-tigress"), orders=False)
    state = advance_to(state, "combat").state
    tig = state.ships["tigress"].parts["hg_ship"]
    tig["systems"]["m_drive"] = 1
    tig["systems"]["computer"] = 1
    tig["batteries"][0]["hits"] = 2
    tig["sections"][1]["breach_round"] = 1  # Main: no repairs this round (TR-20)
    tig["sections"][2]["hull"] = tig["sections"][2]["hull_max"] - 5
    return advance_to(state, "ship_action").state


def link(rule: str) -> str:
    return f'<a class="rule-ref" href="/rules#{rule}">{rule}</a>'


def repair_buttons(html: str) -> list[str]:
    return [
        line.split(">", 1)[1].split("<")[0]
        for line in html.split('<button type="submit"')[1:]
        if line.split(">", 1)[1].startswith("Repair ")
    ]


def test_TR_22_the_form_offers_only_repairable_attempts_and_says_why_not() -> None:
    state = at_ship_action()
    viewer = viewer_for("p-tigress", "player", state)
    html, _ = render_part(state, "tigress", "hg_ship", viewer)
    assert repair_buttons(html) == ["Repair M-Drive in Engineering", "Repair Turret: Beam Laser in Forward"]
    assert f"<li>Computer: a hull breach stops repairs in Main this round ({link('TR-20')})</li>" in html
    assert (
        f"<li>Hull, Structure, armour and the bridge are not repaired during a battle ({link('TR-22')})</li>"
        in html
    )
    # Every offered attempt is one the rules take; after Engineering's attempt it is no longer offered.
    done = act(
        state,
        "traveller.repair",
        {"ship": "tigress", "section": "Engineering", "system": "m_drive"},
        TIGRESS_ACTOR,
        [1, 1],
    )
    html, _ = render_part(done.state, "tigress", "hg_ship", viewer)
    assert repair_buttons(html) == ["Repair Turret: Beam Laser in Forward"]
    assert f"<li>M-Drive: Engineering has had its repair attempt this round ({link('TR-22')})</li>" in html
