"""PostgreSQL: a pg_trgm GIN index on memories.text, so memory search's ILIKE predicates use an index.

Nothing on SQLite (its FTS5 index came with the baseline). Where the pg_trgm extension cannot be created (it
is a trusted extension from PostgreSQL 13 on, but a server may lack the contrib package), search still works,
by scanning the scope's rows.

Revision ID: 0003_memory_trigram_index
Revises: 0002_run_owners
Create Date: 2026-12-01
"""

import logging
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.exc import DBAPIError

revision: str = "0003_memory_trigram_index"
down_revision: str | None = "0002_run_owners"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

INDEX = "ix_memories_text_trgm"
log = logging.getLogger(__name__)


def upgrade() -> None:
    """Create pg_trgm (if allowed) and the trigram index (PostgreSQL only)."""
    conn = op.get_bind()
    if conn.dialect.name != "postgresql":
        return
    try:
        with conn.begin_nested():
            conn.execute(sa.text("CREATE EXTENSION IF NOT EXISTS pg_trgm"))
    except DBAPIError as exc:
        log.warning("memory search runs without a trigram index: pg_trgm is unavailable (%s)", exc.orig)
        return
    conn.execute(sa.text(f"CREATE INDEX IF NOT EXISTS {INDEX} ON memories USING gin (text gin_trgm_ops)"))


def downgrade() -> None:
    """Drop the trigram index (the extension stays: other tables may use it)."""
    if op.get_bind().dialect.name == "postgresql":
        op.execute(sa.text(f"DROP INDEX IF EXISTS {INDEX}"))
