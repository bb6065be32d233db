"""Removed seats: the token hashes of seats the host removed (or their players left).

A token whose seat was removed is answered ``seat_removed`` rather than ``bad_token``,
by every server process on the database.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "removed_seats",
        sa.Column("game_id", sa.String(32), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name="fk_removed_seats_game_id_games", ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("game_id", "token_hash", name="pk_removed_seats"),
    )


def downgrade() -> None:
    op.drop_table("removed_seats")
