"""battle_clocks (each battle's running clock) and ping_settings (which pings a seat wants)

Revision ID: 0013_clocks_and_pings
Revises: 0010_action_request_id
Create Date: 2026-12-05

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0013_clocks_and_pings"
down_revision: str | Sequence[str] | None = "0012_lobby"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "battle_clocks",
        sa.Column("battle_id", sa.String(length=32), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column(
            "run",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column("due_at", sa.Float(), nullable=True),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["battle_id"], ["battles.id"], name=op.f("fk_battle_clocks_battle_id_battles"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("battle_id", name=op.f("pk_battle_clocks")),
    )
    op.create_index(op.f("ix_battle_clocks_due_at"), "battle_clocks", ["due_at"], unique=False)
    op.create_table(
        "ping_settings",
        sa.Column("participant_id", sa.String(length=32), nullable=False),
        sa.Column("your_move", sa.Boolean(), nullable=False),
        sa.Column("deadline", sa.Boolean(), nullable=False),
        sa.Column("browser", sa.Boolean(), nullable=False),
        sa.Column("webhook", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(
            ["participant_id"],
            ["participants.id"],
            name=op.f("fk_ping_settings_participant_id_participants"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("participant_id", name=op.f("pk_ping_settings")),
    )


def downgrade() -> None:
    op.drop_table("ping_settings")
    op.drop_index(op.f("ix_battle_clocks_due_at"), table_name="battle_clocks")
    op.drop_table("battle_clocks")
