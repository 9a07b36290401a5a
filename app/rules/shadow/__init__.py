"""The Shadow living ship: pain track and reactions (SH-01 … SH-17).

The ruleset: the `pain` part (track.py), the pain accumulator on every hit and the pain check as each
`impulse_end` step ends (pain.py), reactions and obligations (reactions.py), the turn's hooks
(hooks.py), the commander's actions (actions.py), what its template draws (display.py), the
refusal of boarding (SH-17) and of a panicked ship's fire (SH-12). It plays in any system whose
steps carry the `allocation` and `impulse_end` moments.
"""

from app.rules.ruleset import gather
from app.rules.shadow import actions, display, hooks, pain, reactions, track
from app.rules.shadow.carry import pain_carry
from app.rules.system import ALLOCATION, IMPULSE_END

RULESET = gather(
    "shadow",
    "Shadow living ships",
    [track, pain, reactions, actions, hooks],
    parts={
        "pain": {
            "display": display.pain,
            "report": display.pain_figures,
            "counter": display.pain_counter,
            "carry": pain_carry,
        }
    },
    needs=frozenset({ALLOCATION, IMPULSE_END}),
    damage_filters=(actions.refuse_panicked_fire,),
    damage_listeners=(pain.accumulate,),
    boarding_refusals=(actions.living_ship_refusal,),
    gone=actions.dead_of_pain,
)
