"""Battle state and log as JSON kept as written (JSONB reorders keys, and with them the ships).

Revision ID: 0002_ordered_json
Revises: 1368617cb065
Create Date: 2026-12-01

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0002_ordered_json"
down_revision: str | Sequence[str] | None = "1368617cb065"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

COLUMNS = (
    ("snapshots", "state"),
    ("action_log", "payload"),
    ("action_log", "dice"),
    ("action_log", "events"),
)


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return  # SQLite stores JSON as text already
    for table, column in COLUMNS:
        op.alter_column(
            table,
            column,
            type_=sa.JSON(),
            existing_type=postgresql.JSONB(),
            postgresql_using=f"{column}::text::json",
        )


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    for table, column in COLUMNS:
        op.alter_column(
            table,
            column,
            type_=postgresql.JSONB(),
            existing_type=sa.JSON(),
            postgresql_using=f"{column}::jsonb",
        )
