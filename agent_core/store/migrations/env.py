"""Alembic's entry point for Sparrow's migrations; run programmatically by ``agent_core.store.database``.

The caller hands over a connection already inside a transaction that holds the migration lock
(``config.attributes["connection"]``), so every revision of one upgrade commits, or none does.
"""

from alembic import context
from sqlmodel import SQLModel

import agent_core.store.tables  # noqa: F401  (registers the tables on SQLModel.metadata for autogenerate)
from agent_core.store.database import VERSION_TABLE

connection = context.config.attributes.get("connection")
if connection is None:
    raise RuntimeError("run Sparrow's migrations with `python -m agent_core db upgrade`, not the alembic command")
context.configure(
    connection=connection,
    target_metadata=SQLModel.metadata,
    version_table=VERSION_TABLE,
    render_as_batch=connection.dialect.name == "sqlite",
)
with context.begin_transaction():
    context.run_migrations()
