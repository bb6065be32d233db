"""Alembic environment: migrations run on the connection ``maumau.store`` hands over.

``maumau.store.migrate.upgrade`` puts an open connection (inside a transaction) into
``config.attributes["connection"]``; there is no alembic.ini and no offline mode.
"""

from __future__ import annotations

from alembic import context
from sqlalchemy.engine import Connection

connection = context.config.attributes.get("connection")
if not isinstance(connection, Connection):
    raise RuntimeError(
        "maumau migrations run through maumau.store (Store.open), which passes a connection"
    )

context.configure(
    connection=connection,
    target_metadata=None,
    render_as_batch=connection.dialect.name == "sqlite",
)
with context.begin_transaction():
    context.run_migrations()
