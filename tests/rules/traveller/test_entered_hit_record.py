"""A hit entered from the table (GEN-03, TR-14) and the referee's ruling (TR-17), pinned to the
words and fields a player reads: who may enter it, each refusal with the input it names, and the
log line with its scorer."""

from __future__ import annotations

from typing import Any

import pytest

from app.rules.core import RuleError
from tests.rules.traveller.helpers import KESTREL_ACTOR, TIGRESS_ACTOR, act, hg, section
from tests.rules.traveller.test_criticals_repairs import two_ships


def refusal(payload: dict[str, Any], actor: Any = None, state: Any = None) -> tuple[str, str | None]:
    state = state if state is not None else two_ships()
    with pytest.raises(RuleError) as refused:
        if actor is None:
            act(state, "traveller.entered_hit", payload)
        else:
            act(state, "traveller.entered_hit", payload, actor)
    return refused.value.message, refused.value.field


def test_TR_14_a_commander_enters_the_hits_their_own_ship_scores_and_no_other() -> None:
    hit = {"target": "tigress", "section": "Main", "hull_damage": 5, "source": "kestrel"}
    done = act(two_ships(), "traveller.entered_hit", hit, KESTREL_ACTOR)
    assert done.texts[0] == "Kestrel hits Tigress (Main): Main Hull 66→61."
    assert section(done.state, "tigress", "Main")["hull"] == 61
    # Tigress's commander may not enter a hit Kestrel scored (the gate: the scorer is the acting
    # ship), nor one with no scorer named (the action's own check: only the referee enters those)
    assert refusal(hit, TIGRESS_ACTOR) == ("you do not command that ship", "source")
    unnamed = {k: v for k, v in hit.items() if k != "source"}
    assert refusal(unnamed, KESTREL_ACTOR) == ("enter hits for a ship you command, or as referee", "source")


def test_GEN_03_an_entered_hit_names_the_input_it_refuses() -> None:
    """Each refusal names its field, so the page marks that input (the standard's 422)."""
    assert refusal({"target": "tigress", "section": "Bridge"}) == (
        "Tigress has no section 'Bridge'",
        "section",
    )
    message, field = refusal({"target": "tigress", "section": "Main", "system": "armour"})
    assert (message, field) == (
        "system must be one of m_drive, j_drive, power_plant, sensors, computer, command",
        "system",
    )
    assert refusal({"target": "nobody", "section": "Main"})[1] == "target"
    plain = two_ships()
    plain.ships["tigress"].parts.pop("hg_ship")
    assert refusal({"target": "tigress", "section": "Main"}, state=plain) == (
        "Tigress is not a High Guard ship",
        "target",
    )


def test_TR_14_an_entry_with_nothing_in_it_is_logged_as_no_effect_and_changes_nothing() -> None:
    state = two_ships()
    before = hg(state, "tigress")
    done = act(state, "traveller.entered_hit", {"target": "tigress", "section": "Main", "source": "kestrel"})
    assert done.texts == ["Kestrel hits Tigress (Main): no effect."]
    assert done.events[0].kind == "entered_hit" and done.events[0].ship == "tigress"
    assert hg(done.state, "tigress") == before


def test_TR_17_a_ship_ruled_destroyed_is_destroyed_and_crippled_and_its_ruling_kept() -> None:
    done = act(two_ships(), "traveller.rule_ship", {"ship": "tigress", "outcome": "destroyed"})
    assert done.texts[0] == "The referee rules Tigress destroyed (TR-17)."
    assert (done.events[0].kind, done.events[0].ship) == ("ruling", "tigress")
    tigress = done.state.ships["tigress"]
    assert (tigress.crippled, tigress.destroyed) == (True, True)
    assert hg(done.state, "tigress")["referee_ruling"] == "destroyed"
    with pytest.raises(RuleError):  # the referee's alone
        act(two_ships(), "traveller.rule_ship", {"ship": "tigress", "outcome": "crippled"}, TIGRESS_ACTOR)
