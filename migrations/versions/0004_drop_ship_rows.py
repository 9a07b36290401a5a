"""drop the ships table: a write-only copy of the snapshot's ships that nothing read

Revision ID: 0004_drop_ship_rows
Revises: 0003_log_clock
Create Date: 2026-12-01

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004_drop_ship_rows"
down_revision: str | Sequence[str] | None = "0003_log_clock"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("ships", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_ships_battle_id"))
    op.drop_table("ships")


def downgrade() -> None:
    op.create_table(
        "ships",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("battle_id", sa.String(length=32), nullable=False),
        sa.Column("ship_id", sa.String(length=60), nullable=False),
        sa.Column("name", sa.String(length=80), nullable=False),
        sa.Column("owner_id", sa.String(length=32), nullable=True),
        sa.Column("system", sa.String(length=20), nullable=False),
        sa.Column("destroyed", sa.Boolean(), nullable=False),
        sa.Column("state", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(
            ["battle_id"], ["battles.id"], name=op.f("fk_ships_battle_id_battles"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ships")),
        sa.UniqueConstraint("battle_id", "ship_id", name=op.f("uq_ships_battle_id_ship_id")),
    )
    with op.batch_alter_table("ships", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_ships_battle_id"), ["battle_id"], unique=False)
