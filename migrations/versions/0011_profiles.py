"""profiles: an identity that follows the player — passkeys, recovery codes, the seats it remembers

Revision ID: 0011_profiles
Revises: 0010_action_request_id
Create Date: 2026-12-05

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0011_profiles"
down_revision: str | Sequence[str] | None = "0010_action_request_id"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _fk(table: str, column: str, other: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        [column], [f"{other}.id"], name=op.f(f"fk_{table}_{column}_{other}"), ondelete="CASCADE"
    )


def upgrade() -> None:
    op.create_table(
        "profiles",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("name", sa.String(length=80), nullable=False),
        sa.Column("user_handle", sa.String(length=64), nullable=False),
        sa.Column("settings", sa.JSON().with_variant(postgresql.JSONB(), "postgresql"), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_profiles")),
        sa.UniqueConstraint("user_handle", name=op.f("uq_profiles_user_handle")),
    )
    op.create_table(
        "profile_passkeys",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("profile_id", sa.String(length=32), nullable=False),
        sa.Column("credential_id", sa.String(length=1400), nullable=False),
        sa.Column("public_key", sa.String(length=2000), nullable=False),
        sa.Column("sign_count", sa.Integer(), nullable=False),
        sa.Column("label", sa.String(length=80), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_used_at", sa.DateTime(timezone=True), nullable=True),
        _fk("profile_passkeys", "profile_id", "profiles"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_profile_passkeys")),
        sa.UniqueConstraint("credential_id", name=op.f("uq_profile_passkeys_credential_id")),
    )
    op.create_index(op.f("ix_profile_passkeys_profile_id"), "profile_passkeys", ["profile_id"])
    op.create_table(
        "profile_recovery_codes",
        sa.Column("code_hash", sa.String(length=64), nullable=False),
        sa.Column("profile_id", sa.String(length=32), nullable=False),
        sa.Column("used_at", sa.DateTime(timezone=True), nullable=True),
        _fk("profile_recovery_codes", "profile_id", "profiles"),
        sa.PrimaryKeyConstraint("code_hash", name=op.f("pk_profile_recovery_codes")),
    )
    op.create_index(op.f("ix_profile_recovery_codes_profile_id"), "profile_recovery_codes", ["profile_id"])
    op.create_table(
        "profile_seats",
        sa.Column("profile_id", sa.String(length=32), nullable=False),
        sa.Column("participant_id", sa.String(length=32), nullable=False),
        sa.Column("battle_id", sa.String(length=32), nullable=False),
        sa.Column("seat_key", sa.String(length=16), nullable=False),
        sa.Column("claimed_at", sa.DateTime(timezone=True), nullable=False),
        _fk("profile_seats", "profile_id", "profiles"),
        _fk("profile_seats", "participant_id", "participants"),
        _fk("profile_seats", "battle_id", "battles"),
        sa.PrimaryKeyConstraint("profile_id", "participant_id", name=op.f("pk_profile_seats")),
    )
    op.create_index(op.f("ix_profile_seats_battle_id"), "profile_seats", ["battle_id"])
    op.create_table(
        "identity_challenges",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("purpose", sa.String(length=20), nullable=False),
        sa.Column("challenge", sa.String(length=128), nullable=False),
        sa.Column("profile_id", sa.String(length=32), nullable=True),
        sa.Column("user_handle", sa.String(length=64), nullable=True),
        sa.Column("name", sa.String(length=80), nullable=True),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_identity_challenges")),
    )


def downgrade() -> None:
    op.drop_table("identity_challenges")
    op.drop_index(op.f("ix_profile_seats_battle_id"), table_name="profile_seats")
    op.drop_table("profile_seats")
    op.drop_index(op.f("ix_profile_recovery_codes_profile_id"), table_name="profile_recovery_codes")
    op.drop_table("profile_recovery_codes")
    op.drop_index(op.f("ix_profile_passkeys_profile_id"), table_name="profile_passkeys")
    op.drop_table("profile_passkeys")
    op.drop_table("profiles")
