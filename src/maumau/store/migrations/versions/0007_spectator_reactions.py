"""The host may turn spectators' reactions off: a third chat setting, on by default
(as every table had it).

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-05
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("chat_settings") as batch:
        batch.add_column(
            sa.Column("spectator_reactions", sa.Boolean(), nullable=False, server_default=sa.true())
        )


def downgrade() -> None:
    with op.batch_alter_table("chat_settings") as batch:
        batch.drop_column("spectator_reactions")
