"""lobby_listings: battles a referee lists in the lobby (open seats, public spectating, the
viewscreen's delay)

Revision ID: 0012_lobby
Revises: 0010_action_request_id
Create Date: 2026-12-05

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012_lobby"
down_revision: str | Sequence[str] | None = "0011_profiles"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "lobby_listings",
        sa.Column("battle_id", sa.String(length=32), nullable=False),
        sa.Column("claims", sa.String(length=10), nullable=False),
        sa.Column("open_seats", sa.JSON(), nullable=False),
        sa.Column("spectators", sa.Boolean(), nullable=False),
        sa.Column("delay_actions", sa.Integer(), nullable=False),
        sa.Column("delay_turn", sa.Boolean(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["battle_id"],
            ["battles.id"],
            name=op.f("fk_lobby_listings_battle_id_battles"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("battle_id", name=op.f("pk_lobby_listings")),
    )
    op.create_index(op.f("ix_lobby_listings_spectators"), "lobby_listings", ["spectators"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_lobby_listings_spectators"), table_name="lobby_listings")
    op.drop_table("lobby_listings")
