"""Tables: battles, participants, ships (a projection of the snapshot for queries), the
append-only action log, and the snapshot (a cache of the log)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import DateTime, ForeignKey, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.db import Base, json_column_type, ordered_json_type


def now() -> datetime:
    return datetime.now(UTC)


class Battle(Base):
    __tablename__ = "battles"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    name: Mapped[str] = mapped_column(String(120))
    system: Mapped[str] = mapped_column(String(20))
    status: Mapped[str] = mapped_column(String(20), default="active")  # active | finished
    dice_mode: Mapped[str] = mapped_column(String(20), default="seeded")  # seeded | physical
    seq: Mapped[int] = mapped_column(Integer, default=0)
    turn: Mapped[int] = mapped_column(Integer, default=1)
    step: Mapped[str] = mapped_column(String(40), default="")
    seed: Mapped[str] = mapped_column(String(128))  # secret until the battle ends
    seed_hash: Mapped[str] = mapped_column(String(64))
    options: Mapped[dict[str, Any]] = mapped_column(json_column_type(), default=dict)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now, onupdate=now)
    version: Mapped[int] = mapped_column(Integer, nullable=False, default=1)

    __mapper_args__ = {"version_id_col": version}

    participants: Mapped[list[Participant]] = relationship(
        back_populates="battle", order_by="Participant.created_at"
    )


class Participant(Base):
    __tablename__ = "participants"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    battle_id: Mapped[str] = mapped_column(ForeignKey("battles.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(80))
    role: Mapped[str] = mapped_column(String(20))  # referee | player | spectator | bot
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    active: Mapped[bool] = mapped_column(default=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)

    battle: Mapped[Battle] = relationship(back_populates="participants")


class ShipRow(Base):
    """The ships of the current snapshot, one row each, rewritten with every action."""

    __tablename__ = "ships"
    __table_args__ = (UniqueConstraint("battle_id", "ship_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    battle_id: Mapped[str] = mapped_column(ForeignKey("battles.id", ondelete="CASCADE"), index=True)
    ship_id: Mapped[str] = mapped_column(String(60))
    name: Mapped[str] = mapped_column(String(80))
    owner_id: Mapped[str | None] = mapped_column(String(32), nullable=True)
    system: Mapped[str] = mapped_column(String(20))
    destroyed: Mapped[bool] = mapped_column(default=False)
    state: Mapped[dict[str, Any]] = mapped_column(json_column_type())


class ActionLog(Base):
    """One row per applied action; never updated, never deleted (rewinds are actions too)."""

    __tablename__ = "action_log"
    __table_args__ = (
        UniqueConstraint("battle_id", "seq"),
        UniqueConstraint("battle_id", "action_id"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    battle_id: Mapped[str] = mapped_column(ForeignKey("battles.id", ondelete="CASCADE"), index=True)
    seq: Mapped[int] = mapped_column(Integer)
    action_id: Mapped[str] = mapped_column(String(64))
    actor_id: Mapped[str | None] = mapped_column(String(32), nullable=True)
    actor_role: Mapped[str] = mapped_column(String(20))
    action_type: Mapped[str] = mapped_column(String(60))
    clock: Mapped[str] = mapped_column(
        String(60), default="", server_default=""
    )  # when it was made, e.g. "T4 I17"
    payload: Mapped[dict[str, Any]] = mapped_column(ordered_json_type())
    dice: Mapped[list[Any]] = mapped_column(ordered_json_type())
    events: Mapped[list[Any]] = mapped_column(ordered_json_type())
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


class Snapshot(Base):
    """The state after the last action: a cache that `rebuild` can always recompute from the log."""

    __tablename__ = "snapshots"

    battle_id: Mapped[str] = mapped_column(ForeignKey("battles.id", ondelete="CASCADE"), primary_key=True)
    seq: Mapped[int] = mapped_column(Integer)
    state: Mapped[dict[str, Any]] = mapped_column(ordered_json_type())


class Checkpoint(Base):
    """The state right after action `seq`, kept every CHECKPOINT_EVERY actions so the state at any
    seq replays fewer than that many actions. Like the snapshot, a cache of the log: written once,
    never updated (the log is append-only, so the state after an action never changes)."""

    __tablename__ = "checkpoints"

    battle_id: Mapped[str] = mapped_column(ForeignKey("battles.id", ondelete="CASCADE"), primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    state: Mapped[dict[str, Any]] = mapped_column(ordered_json_type())
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)
