"""leagues: a season's standings between profiles — leagues, members, rated battles, rating changes

Revision ID: 0015_leagues
Revises: 0011_profiles
Create Date: 2026-12-05

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0015_leagues"
down_revision: str | Sequence[str] | None = "0014_campaigns"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _fk(table: str, column: str, other: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        [column], [f"{other}.id"], name=op.f(f"fk_{table}_{column}_{other}"), ondelete="CASCADE"
    )


def _json() -> sa.types.TypeEngine:
    return sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def upgrade() -> None:
    op.create_table(
        "leagues",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("name", sa.String(length=80), nullable=False),
        sa.Column("system", sa.String(length=20), nullable=False),
        sa.Column("organiser_id", sa.String(length=32), nullable=False),
        sa.Column("public", sa.Boolean(), nullable=False),
        sa.Column("invite", sa.String(length=32), nullable=False),
        sa.Column("points", _json(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        _fk("leagues", "organiser_id", "profiles"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_leagues")),
    )
    op.create_index(op.f("ix_leagues_organiser_id"), "leagues", ["organiser_id"])
    op.create_table(
        "league_members",
        sa.Column("league_id", sa.String(length=32), nullable=False),
        sa.Column("profile_id", sa.String(length=32), nullable=False),
        sa.Column("joined_at", sa.DateTime(timezone=True), nullable=False),
        _fk("league_members", "league_id", "leagues"),
        _fk("league_members", "profile_id", "profiles"),
        sa.PrimaryKeyConstraint("league_id", "profile_id", name=op.f("pk_league_members")),
    )
    op.create_table(
        "league_battles",
        sa.Column("battle_id", sa.String(length=32), nullable=False),
        sa.Column("league_id", sa.String(length=32), nullable=False),
        sa.Column("marked_by", sa.String(length=32), nullable=False),
        sa.Column("points", _json(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=True),
        sa.Column("rated_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("note", sa.String(length=200), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        _fk("league_battles", "battle_id", "battles"),
        _fk("league_battles", "league_id", "leagues"),
        sa.PrimaryKeyConstraint("battle_id", name=op.f("pk_league_battles")),
    )
    op.create_index(op.f("ix_league_battles_league_id"), "league_battles", ["league_id"])
    op.create_table(
        "league_rating_changes",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("league_id", sa.String(length=32), nullable=False),
        sa.Column("battle_id", sa.String(length=32), nullable=False),
        sa.Column("battle_name", sa.String(length=120), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("profile_id", sa.String(length=32), nullable=False),
        sa.Column("side", sa.String(length=60), nullable=False),
        sa.Column("rank", sa.Integer(), nullable=False),
        sa.Column("result", sa.String(length=10), nullable=False),
        sa.Column("mu_before", sa.Float(), nullable=False),
        sa.Column("sigma_before", sa.Float(), nullable=False),
        sa.Column("mu_after", sa.Float(), nullable=False),
        sa.Column("sigma_after", sa.Float(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        _fk("league_rating_changes", "league_id", "leagues"),
        _fk("league_rating_changes", "profile_id", "profiles"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_league_rating_changes")),
        sa.UniqueConstraint(
            "league_id",
            "battle_id",
            "profile_id",
            name=op.f("uq_league_rating_changes_league_id_battle_id_profile_id"),
        ),
    )
    op.create_index(op.f("ix_league_rating_changes_league_id"), "league_rating_changes", ["league_id"])
    op.create_index(op.f("ix_league_rating_changes_profile_id"), "league_rating_changes", ["profile_id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_league_rating_changes_profile_id"), table_name="league_rating_changes")
    op.drop_index(op.f("ix_league_rating_changes_league_id"), table_name="league_rating_changes")
    op.drop_table("league_rating_changes")
    op.drop_index(op.f("ix_league_battles_league_id"), table_name="league_battles")
    op.drop_table("league_battles")
    op.drop_table("league_members")
    op.drop_index(op.f("ix_leagues_organiser_id"), table_name="leagues")
    op.drop_table("leagues")
