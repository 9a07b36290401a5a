"""What the services need from the outside world, built once per process."""

from __future__ import annotations

from dataclasses import dataclass

from app.config import Settings
from app.db import Database
from app.realtime.broker import Broker


@dataclass
class Platform:
    settings: Settings
    db: Database
    broker: Broker
