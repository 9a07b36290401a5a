"""High Guard clauses no other test drove: damage entered on a section already destroyed (TR-17),
the referee ruling a ship crippled rather than destroyed (TR-17), a radiation computer hit (TR-21,
TR-19) and taking a pair off the range board that was never on it (TR-02)."""

from __future__ import annotations

from tests.rules.traveller.helpers import act, advance_to, battle, capital, hg, section
from tests.rules.traveller.test_criticals_repairs import two_ships
from tests.rules.traveller.test_spinal import PARTICLE, setup, shoot


def test_TR_17_damage_entered_on_a_destroyed_section_is_lost() -> None:
    """Hull then Structure; a section at 0 Structure is destroyed and damage beyond it is lost: the
    CF section's 66 Hull and 66 Structure take 132 of 200, and a later 10 finds nothing to take."""
    hit = {"target": "tigress", "section": "Main", "hull_damage": 200}
    first = act(two_ships(), "traveller.entered_hit", hit)
    assert first.texts[0] == "An attacker hits Tigress (Main): Main Hull 66→0, Structure 66→0."
    assert section(first.state, "tigress", "Main")["destroyed"] is True
    again = act(first.state, "traveller.entered_hit", {**hit, "hull_damage": 10})
    assert again.texts == [
        "An attacker hits Tigress (Main): Main destroyed already: the damage is lost (TR-17)."
    ]
    main = section(again.state, "tigress", "Main")
    assert (main["hull"], main["structure"], main["destroyed"]) == (0, 0, True)


def test_TR_17_the_referee_may_rule_a_ship_crippled_and_it_fights_on() -> None:
    """The referee rules crippled or destroyed; a crippled ship is not destroyed, so no crew take to
    the lifeboats (TR-27's Prepare to Abandon Ship! follows a destruction only)."""
    done = act(two_ships(), "traveller.rule_ship", {"ship": "tigress", "outcome": "crippled"})
    assert done.texts == ["The referee rules Tigress crippled (TR-17)."]
    tigress = done.state.ships["tigress"]
    assert (tigress.crippled, tigress.destroyed) == (True, False)
    assert hg(done.state, "tigress")["referee_ruling"] == "crippled"
    assert hg(done.state, "tigress")["crew_escaped"] is False


def test_TR_21_TR_19_a_radiation_computer_hit_gives_the_first_hits_minus_one() -> None:
    """Particle 250 − armour 5×30 = 100 through, residual 15: radiation (100 + 15) // 6 = 19 is band
    3 (16–20): crew 4+, computer 6+, no sensor throw. Computer 2D 6 hits: −1 DM to all rolls."""
    state = advance_to(setup(PARTICLE, armour=5), "combat").state
    done = shoot(state, [6, 4, 5, 6, 1, 3, 2, 1, 1, 3, 3])
    assert done.texts[3] == (
        "Tigress radiation 19: band 3; crew 2D 2 vs 4+: no hit; computer 2D 6 vs 6+: computer hit 1:"
        " −1 DM to all rolls."
    )
    systems = hg(done.state, "tigress")["systems"]
    assert (systems["computer"], systems["sensors"]) == (1, 0)
    assert hg(done.state, "tigress")["crew_strength"] == "full"


def test_TR_02_taking_off_the_board_a_pair_that_is_not_on_it_changes_nothing() -> None:
    state = battle(capital("Kestrel"), capital("Tigress"))
    before = {sid: dict(hg(state, sid)) for sid in ("kestrel", "tigress")}
    payload = {"ship": "kestrel", "other": "tigress", "band": None, "reason": "not engaged yet"}
    done = act(state, "traveller.set_range", payload)
    assert done.texts == [
        "⚠ OVERRIDE (Referee): range board Kestrel–Tigress off the board→off the board — “not engaged yet”"
    ]
    assert {sid: hg(done.state, sid) for sid in ("kestrel", "tigress")} == before
