"""SQLite: appending a step makes its game active as of the step's time.

The SQLite writer thread then commits a group of moves as one ``INSERT`` statement
(``maumau.store.appender``): no ``BEGIN``, ``UPDATE games`` and ``COMMIT`` of its own,
each of which cost the thread a wait for the interpreter lock.  PostgreSQL's group
commit still updates the games itself, so nothing changes there.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    if op.get_bind().dialect.name != "sqlite":
        return
    op.execute(
        "CREATE TRIGGER steps_touch_game AFTER INSERT ON steps BEGIN"
        " UPDATE games SET last_active_at = NEW.created_at"
        " WHERE id = NEW.game_id;"
        " END"
    )


def downgrade() -> None:
    if op.get_bind().dialect.name != "sqlite":
        return
    op.execute("DROP TRIGGER steps_touch_game")
