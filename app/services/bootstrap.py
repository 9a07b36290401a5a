"""The one place a process builds its platform: the settings, the database (and with it the action
store), the broker and the rules, with the write path's after-commit handlers on the bus. The
server (`app/main.py`), the command line and the tests all start here, so none of them runs an
action whose state is not kept, whose viewers are not woken or whose checkpoint is not taken."""

from __future__ import annotations

from functools import partial

from app.config import Settings
from app.db import Database
from app.realtime.broker import Broker
from app.rules import STANDARD, Rules
from app.services.bus import ActionCommitted
from app.services.campaigns import fleets as campaign_fleets
from app.services.leagues import ratings as league_ratings
from app.services.platform import Platform
from app.services.table import clocks
from app.services.write.committed import wire


def build_platform(settings: Settings, db: Database, broker: Broker, rules: Rules = STANDARD) -> Platform:
    platform = Platform(settings=settings, db=db, broker=broker, rules=rules)
    wire(platform)
    platform.bus.on(ActionCommitted, partial(clocks.on_committed, platform))  # the battle clocks' times
    league_ratings.wire(platform)  # a league battle is rated as it ends
    platform.bus.on(ActionCommitted, partial(campaign_fleets.on_committed, platform))  # its fleets' result
    return platform
