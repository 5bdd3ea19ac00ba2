"""Baseline: the schema of Sparrow before migrations (schema version 1).

Frozen copies of the tables as they were, created only where missing: on an empty database this makes the
whole schema, and on a database made before migrations it adds what an older build may lack (``memories``
and its index) and leaves every row alone.

Revision ID: 0001_baseline
Revises:
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from agent_core.store.memory import create_sqlite_fts

revision: str = "0001_baseline"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

SCHEMA_VERSION = 1


def _tables() -> sa.MetaData:
    meta = sa.MetaData()
    version = sa.Column("version", sa.Integer, nullable=False)
    sa.Table("sparrow_schema", meta, sa.Column("id", sa.Integer, primary_key=True), version)
    _sessions_and_events(meta)
    _snapshots(meta)
    _memories(meta)
    return meta


def _sessions_and_events(meta: sa.MetaData) -> None:
    sa.Table(
        "sessions",
        meta,
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("title", sa.String(200)),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("updated_at", sa.Float, nullable=False, index=True),
        sa.Column("last_seq", sa.Integer, nullable=False),
        sa.Column("config", sa.JSON, nullable=False),
        sa.Column("parent_id", sa.String(64), sa.ForeignKey("sessions.id", ondelete="SET NULL")),
        sa.Column("forked_from", sa.String(64)),
    )
    sa.Table(
        "events",
        meta,
        sa.Column("session_id", sa.String(64), sa.ForeignKey("sessions.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("seq", sa.Integer, primary_key=True),
        sa.Column("run_id", sa.String(64), nullable=False),
        sa.Column("type", sa.String(40), nullable=False),
        sa.Column("ts", sa.Float, nullable=False),
        sa.Column("payload", sa.Text, nullable=False),
    )


def _snapshots(meta: sa.MetaData) -> None:
    sa.Table(
        "snapshots",
        meta,
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column(
            "session_id", sa.String(64), sa.ForeignKey("sessions.id", ondelete="CASCADE"), nullable=False, index=True
        ),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("upto_seq", sa.Integer, nullable=False),
        sa.Column("title", sa.String(200)),
        sa.Column("config", sa.JSON, nullable=False),
        sa.UniqueConstraint("session_id", "name"),
    )


def _memories(meta: sa.MetaData) -> None:
    sa.Table(
        "memories",
        meta,
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("scope", sa.String(64), nullable=False),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("text_hash", sa.String(64), nullable=False),
        sa.Column("origin", sa.String(16), nullable=False),
        sa.Column("source_session_id", sa.String(64), index=True),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.UniqueConstraint("scope", "text_hash"),
        sa.Index("ix_memories_scope_created", "scope", "created_at"),
        sqlite_autoincrement=True,
    )


def upgrade() -> None:
    """Create the tables (and SQLite's full-text memory index) that are missing; record schema version 1."""
    conn = op.get_bind()
    _tables().create_all(conn, checkfirst=True)
    if conn.dialect.name == "sqlite":
        create_sqlite_fts(conn)
    if conn.execute(sa.text("SELECT COUNT(*) FROM sparrow_schema")).scalar() == 0:
        conn.execute(sa.text("INSERT INTO sparrow_schema (id, version) VALUES (1, :v)"), {"v": SCHEMA_VERSION})


def downgrade() -> None:
    """Not supported: a baseline is where history starts."""
    raise NotImplementedError("Sparrow's baseline schema cannot be downgraded")
