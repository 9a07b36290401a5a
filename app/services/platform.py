"""What the services need from the outside world, built once per process."""

from __future__ import annotations

from dataclasses import dataclass, field

from app.config import Settings
from app.db import Database
from app.realtime.broker import Broker
from app.rules import STANDARD, Rules


@dataclass
class Platform:
    settings: Settings
    db: Database
    broker: Broker
    rules: Rules = field(default=STANDARD)  # the systems and rulesets this server plays
