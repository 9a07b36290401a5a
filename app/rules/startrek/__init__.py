"""Star Trek ships in Babylon 5 Wars (ST-01 … ST-25).

The ruleset: the parts (`shields`, `first_one`, `power`, `impulse`, `warp`, `cloak`,
`photon_launcher`), the step hooks, the damage stages and the `startrek.*` actions. The damage
filters run in the order written below: the fire checks (fire.py) and the called-shot check
(impulse.py) refuse illegal damage before shields take their share.

Where each rule lives: impulse.py ST-01…04; shields.py ST-05, 06, 10…13, 16; regeneration.py ST-07,
15; transfers.py ST-08, 15a; ramming.py ST-09; arcs.py ST-14 and switching systems; power.py the
budget; warp.py ST-17…20; cloak.py ST-21…24; fire.py who may fire; torpedoes.py ST-25.
"""

from app.rules.ruleset import gather
from app.rules.startrek import (
    arcs,
    cloak,
    common,
    display,
    fire,
    impulse,
    power,
    ramming,
    regeneration,
    shields,
    torpedoes,
    transfers,
    warp,
)
from app.rules.system import ADJUST, ALLOCATION, FIRE, MOVEMENT

RULESET = gather(
    "startrek",
    "Star Trek ships",
    [arcs, cloak, fire, impulse, power, ramming, regeneration, shields, torpedoes, transfers, warp],
    needs=frozenset({ALLOCATION, MOVEMENT, FIRE, ADJUST}),
    parts={
        "shields": {
            "display": display.shield_values,
            "report": display.shield_figures,
            "counter": display.shield_counter,
        },
        "power": {"display": display.power_values},
        "impulse": {"display": display.impulse_values},
        "warp": {"display": display.warp_values},
        "cloak": {"display": display.cloak_values, "counter": display.cloak_counter},
        "photon_launcher": {"display": display.photon_values},
        "first_one": {"display": display.first_one_values},
    },
    # ST-13 energy drain, ST-24 flash and shredder collateral, ST-16 First One fire.
    damage_traits=(
        ("energy_drain", "energy drain"),
        ("flash", "flash"),
        ("shredder", "antimatter shredder"),
        ("first_one", "First One fire"),
    ),
    damage_filters=(fire.check_fire, impulse.refuse_called_shot, shields.shield_filter),
    damage_listeners=(shields.generator_listener, warp.nacelle_listener, impulse.thruster_listener),
    gone=common.gone_to_warp,
    map_direction=shields.map_direction,
)
