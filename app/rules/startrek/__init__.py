"""Star Trek ships in Babylon 5 Wars (ST-01 … ST-25).

Importing the package registers the parts (`shields`, `first_one`, `power`, `impulse`, `warp`,
`cloak`, `photon_launcher`), the step hooks, the damage filters and listeners, and the
`startrek.*` actions. The shield filter is registered last, so that the called-shot check
(impulse.py) and the fire checks (fire.py) refuse illegal damage before shields take their share.

Where each rule lives: impulse.py ST-01…04; shields.py ST-05, 06, 10…13, 16; regeneration.py ST-07,
15; transfers.py ST-08, 15a; ramming.py ST-09; arcs.py ST-14 and switching systems; power.py the
budget; warp.py ST-17…20; cloak.py ST-21…24; fire.py who may fire; torpedoes.py ST-25.
"""

from app.rules.startrek import (  # noqa: F401  (each import registers its rules)
    arcs,
    cloak,
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

shields.register_filter()
