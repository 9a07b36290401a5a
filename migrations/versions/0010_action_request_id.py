"""action_log.request_id: the request that made each action, so its log lines can be found

Revision ID: 0010_action_request_id
Revises: 0009_report_shares
Create Date: 2026-12-05

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010_action_request_id"
down_revision: str | Sequence[str] | None = "0009_report_shares"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("action_log") as batch:
        batch.add_column(sa.Column("request_id", sa.String(length=64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("action_log") as batch:
        batch.drop_column("request_id")
