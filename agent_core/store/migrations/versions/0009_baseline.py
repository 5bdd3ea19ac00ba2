"""Baseline: the whole schema of Sparrow 0.1.0, every table and both full-text indexes, made on an empty database.

It replaces the pre-release revisions 0001 to 0008 and numbers on after them. A database at their head,
``0008_experiment_judge``, holds exactly this schema, so it is current as it is (``database.OLD_HEAD``); one at an
earlier pre-release revision is refused. The tables are frozen copies, not the models: a later change to the models
comes with a revision of its own, and this one keeps making the schema of 0.1.0. On SQLite the FTS5 index of
``memories`` comes with its triggers; on PostgreSQL a pg_trgm GIN index serves memory search where the extension can
be created (it is trusted from PostgreSQL 13 on; without it, search scans the scope's rows).

Revision ID: 0009_baseline
Revises:
Create Date: 2026-12-03
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy import (
    Boolean,
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
)
from sqlalchemy.exc import DBAPIError

from agent_core.store.memory import create_sqlite_fts

revision: str = "0009_baseline"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

log = logging.getLogger(__name__)
TRIGRAM_INDEX = "ix_memories_text_trgm"


def _sessions(meta: MetaData, ids: String, owner: String) -> None:
    """Sessions, their events and snapshots, who started each run, and the run in progress."""
    Table(
        "sessions",
        meta,
        Column("id", ids, primary_key=True),
        Column("title", String(200)),
        Column("created_at", Float, nullable=False),
        Column("updated_at", Float, nullable=False, index=True),
        Column("last_seq", Integer, nullable=False),
        Column("config", sa.JSON, nullable=False),
        Column("parent_id", ids, ForeignKey("sessions.id", ondelete="SET NULL")),
        Column("forked_from", ids),
        Column("owner", owner, index=True),
        Column("imported_at", Float),
    )
    Table(
        "events",
        meta,
        Column("session_id", ids, ForeignKey("sessions.id", ondelete="CASCADE"), primary_key=True),
        Column("seq", Integer, primary_key=True),
        Column("run_id", ids, nullable=False),
        Column("type", String(40), nullable=False),
        Column("ts", Float, nullable=False),
        Column("payload", Text, nullable=False),
    )
    Table(
        "snapshots",
        meta,
        Column("id", ids, primary_key=True),
        Column("session_id", ids, ForeignKey("sessions.id", ondelete="CASCADE"), nullable=False, index=True),
        Column("name", String(200), nullable=False),
        Column("created_at", Float, nullable=False),
        Column("upto_seq", Integer, nullable=False),
        Column("title", String(200)),
        Column("config", sa.JSON, nullable=False),
        Column("owner", owner, index=True),
        UniqueConstraint("session_id", "name"),
    )
    Table(
        "runs",
        meta,
        Column("session_id", ids, ForeignKey("sessions.id", ondelete="CASCADE"), primary_key=True),
        Column("run_id", ids, primary_key=True),
        Column("started_by", owner, nullable=False),
        Column("started_at", Float, nullable=False),
    )
    Table(
        "run_owners",
        meta,
        Column("session_id", ids, ForeignKey("sessions.id", ondelete="CASCADE"), primary_key=True),
        Column("run_id", ids, nullable=False),
        Column("owner", String(200), nullable=False),
        Column("heartbeat", Float, nullable=False),
        Column("cancel_requested", Boolean, nullable=False),
    )
    Table(
        "share_links",
        meta,
        Column("id", ids, primary_key=True),
        Column("token_hash", String(64), nullable=False, unique=True),
        Column("session_id", ids, ForeignKey("sessions.id", ondelete="CASCADE"), nullable=False, index=True),
        Column("snapshot_id", ids, ForeignKey("snapshots.id", ondelete="CASCADE")),
        Column("created_by", owner),
        Column("created_at", Float, nullable=False),
        Column("expires_at", Float),
        Column("revoked_at", Float),
        Column("allow_anonymous", Boolean, nullable=False),
    )


def _memories(meta: MetaData, ids: String, owner: String) -> None:
    """Long-term memories (their full-text indexes are made after the tables)."""
    Table(
        "memories",
        meta,
        Column("id", Integer, primary_key=True),
        Column("scope", String(64), nullable=False),
        Column("text", Text, nullable=False),
        Column("text_hash", String(64), nullable=False),
        Column("origin", String(16), nullable=False),
        Column("source_session_id", ids, index=True),
        Column("created_at", Float, nullable=False),
        Column("owner", owner, index=True),
        UniqueConstraint("scope", "text_hash"),
        Index("ix_memories_scope_created", "scope", "created_at"),
        sqlite_autoincrement=True,
    )


def _experiments(meta: MetaData, ids: String, owner: String) -> None:
    """Datasets and their items, experiments, and one scored result per (item, configuration, repeat)."""
    Table(
        "datasets",
        meta,
        Column("id", ids, primary_key=True),
        Column("name", String(200), nullable=False, index=True),
        Column("version", Integer, nullable=False),
        Column("description", Text, nullable=False),
        Column("owner", owner, index=True),
        Column("created_at", Float, nullable=False),
        Column("item_count", Integer, nullable=False),
        UniqueConstraint("owner", "name", "version"),
    )
    Table(
        "dataset_items",
        meta,
        Column("dataset_id", ids, ForeignKey("datasets.id", ondelete="CASCADE"), primary_key=True),
        Column("position", Integer, primary_key=True),
        Column("key", String(64), nullable=False),
        Column("data", sa.JSON, nullable=False),
    )
    Table(
        "experiments",
        meta,
        Column("id", ids, primary_key=True),
        Column("name", String(200), nullable=False),
        Column("dataset_id", ids, ForeignKey("datasets.id", ondelete="CASCADE"), nullable=False, index=True),
        Column("configs", sa.JSON, nullable=False),
        Column("repeats", Integer, nullable=False),
        Column("concurrency", Integer, nullable=False),
        Column("baseline_id", ids),
        Column("status", String(20), nullable=False),
        Column("owner", owner, index=True),
        Column("created_at", Float, nullable=False),
        Column("finished_at", Float),
        Column("queue", String(40)),
        Column("judge", sa.JSON),
    )
    Table(
        "experiment_results",
        meta,
        Column("experiment_id", ids, ForeignKey("experiments.id", ondelete="CASCADE"), primary_key=True),
        Column("position", Integer, primary_key=True),
        Column("config_index", Integer, primary_key=True),
        Column("repeat", Integer, primary_key=True),
        Column("session_id", ids, ForeignKey("sessions.id", ondelete="SET NULL")),
        Column("run_id", ids),
        Column("state", String(20), nullable=False),
        Column("passed", Boolean),
        Column("score", Float),
        Column("scores", sa.JSON, nullable=False),
        Column("failure", String(40)),
        Column("cost", Float),
        Column("worker", String(200)),
        Column("started_at", Float, nullable=False),
        Column("finished_at", Float),
    )


def upgrade() -> None:
    """Create every table, then the full-text index of ``memories`` this database can have."""
    conn = op.get_bind()
    meta = MetaData()
    for tables in (_sessions, _memories, _experiments):
        tables(meta, String(64), String(520))
    meta.create_all(conn)
    if conn.dialect.name == "sqlite":
        create_sqlite_fts(conn)
    elif conn.dialect.name == "postgresql":
        _trigram_index()


def _trigram_index() -> None:
    """pg_trgm's GIN index on ``memories.text``, if the extension can be created (else search scans, and works)."""
    conn = op.get_bind()
    try:
        with conn.begin_nested():
            conn.execute(sa.text("CREATE EXTENSION IF NOT EXISTS pg_trgm"))
    except DBAPIError as exc:
        log.warning("memory search runs without a trigram index: pg_trgm is unavailable (%s)", exc.orig)
        return
    conn.execute(sa.text(f"CREATE INDEX {TRIGRAM_INDEX} ON memories USING gin (text gin_trgm_ops)"))


def downgrade() -> None:
    """Not supported: a baseline is where history starts."""
    raise NotImplementedError("Sparrow's baseline schema cannot be downgraded")
