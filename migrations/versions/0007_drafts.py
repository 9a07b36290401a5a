"""drafts: saved drafts of actions (secret orders) kept outside the append-only log

Revision ID: 0007_drafts
Revises: 0006_checkpoints
Create Date: 2026-12-01

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0007_drafts"
down_revision: str | Sequence[str] | None = "0006_checkpoints"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "drafts",
        sa.Column("battle_id", sa.String(length=32), nullable=False),
        sa.Column("action_type", sa.String(length=60), nullable=False),
        sa.Column("ship_id", sa.String(length=60), nullable=False),
        sa.Column("participant_id", sa.String(length=32), nullable=False),
        sa.Column(
            "payload",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["battle_id"], ["battles.id"], name=op.f("fk_drafts_battle_id_battles"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("battle_id", "action_type", "ship_id", name=op.f("pk_drafts")),
    )


def downgrade() -> None:
    op.drop_table("drafts")
