"""A table's chat: its last lines, and what the host allows (chat on or off, for
spectators too); neither is part of the game record.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "chat_lines",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("game_id", sa.String(32), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("name", sa.String(64), nullable=True),
        sa.Column("text", sa.String(1000), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"],
            ["games.id"],
            name="fk_chat_lines_game_id_games",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name="pk_chat_lines"),
    )
    op.create_index("ix_chat_lines_game_id_id", "chat_lines", ["game_id", "id"])
    op.create_table(
        "chat_settings",
        sa.Column("game_id", sa.String(32), nullable=False),
        sa.Column("chat", sa.Boolean(), nullable=False),
        sa.Column("spectators", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"],
            ["games.id"],
            name="fk_chat_settings_game_id_games",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("game_id", name="pk_chat_settings"),
    )


def downgrade() -> None:
    op.drop_table("chat_settings")
    op.drop_index("ix_chat_lines_game_id_id", table_name="chat_lines")
    op.drop_table("chat_lines")
