"""The action catalogue every door shows: each action any system plays, with who may submit it,
where it plays and its payload's JSON schema — rewind and undo included. The schemas are the ones
the offers carry (`payload_schema`, worked out once per model): pydantic building every one anew
made each read of the catalogue cost 13 ms of CPU."""

from __future__ import annotations

from typing import Any

from app.rules import Rules
from app.services.history.replay import HISTORY_ACTIONS
from app.services.reading.views import payload_schema


def catalogue(rules: Rules) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, (spec, systems) in sorted(rules.all_actions().items()):
        out[name] = {
            "summary": spec.summary,
            "referee_only": spec.referee_only,
            "ship_field": spec.ship,
            "moments": sorted(spec.during) or None,
            "systems": sorted(systems),
            "payload_schema": payload_schema(spec.payload),
        }
    for name, spec in HISTORY_ACTIONS.items():
        out[name] = {
            "summary": spec.summary,
            "referee_only": True,
            "systems": sorted(rules.systems),
            "payload_schema": payload_schema(spec.payload),
        }
    return out
