"""checkpoints: the state every N actions, so history replays a bounded number of actions

Revision ID: 0006_checkpoints
Revises: 0005_table_talk
Create Date: 2026-12-01 20:00:00.000000

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0006_checkpoints"
down_revision: str | Sequence[str] | None = "0005_table_talk"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema."""
    op.create_table(
        "checkpoints",
        sa.Column("battle_id", sa.String(length=32), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("state", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["battle_id"], ["battles.id"], name=op.f("fk_checkpoints_battle_id_battles"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("battle_id", "seq", name=op.f("pk_checkpoints")),
    )


def downgrade() -> None:
    """Downgrade schema."""
    op.drop_table("checkpoints")
