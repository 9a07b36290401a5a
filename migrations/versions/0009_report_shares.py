"""report_shares: public links to a battle's report, made by its referee, revocable

Revision ID: 0009_report_shares
Revises: 0008_ship_library
Create Date: 2026-12-03

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009_report_shares"
down_revision: str | Sequence[str] | None = "0008_ship_library"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "report_shares",
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("battle_id", sa.String(length=32), nullable=False),
        sa.Column("created_by", sa.String(length=32), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["battle_id"], ["battles.id"], name=op.f("fk_report_shares_battle_id_battles"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("token_hash", name=op.f("pk_report_shares")),
    )
    op.create_index(op.f("ix_report_shares_battle_id"), "report_shares", ["battle_id"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_report_shares_battle_id"), table_name="report_shares")
    op.drop_table("report_shares")
