"""ship_library: ship definitions referees save into the server's library

Revision ID: 0008_ship_library
Revises: 0007_drafts
Create Date: 2026-12-01

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008_ship_library"
down_revision: str | Sequence[str] | None = "0007_drafts"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "ship_library",
        sa.Column("slug", sa.String(length=60), nullable=False),
        sa.Column("name", sa.String(length=80), nullable=False),
        sa.Column("system", sa.String(length=20), nullable=False),
        sa.Column("definition", sa.JSON(), nullable=False),
        sa.Column("source", sa.String(length=20), nullable=False),
        sa.Column("saved_in", sa.String(length=32), nullable=False),
        sa.Column("saved_by", sa.String(length=32), nullable=False),
        sa.Column("saved_by_name", sa.String(length=80), nullable=False),
        sa.Column("from_ship", sa.String(length=60), nullable=True),
        sa.Column("held_for", sa.String(length=32), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("slug", name=op.f("pk_ship_library")),
    )
    op.create_index(op.f("ix_ship_library_system"), "ship_library", ["system"], unique=False)
    op.create_index(op.f("ix_ship_library_saved_in"), "ship_library", ["saved_in"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_ship_library_saved_in"), table_name="ship_library")
    op.drop_index(op.f("ix_ship_library_system"), table_name="ship_library")
    op.drop_table("ship_library")
