"""SQLModel tables: sessions, their append-only event log, named snapshots, long-term memories, the schema version."""

from typing import Any

from sqlalchemy import JSON, Text
from sqlmodel import Field, Index, SQLModel, UniqueConstraint


class SchemaRow(SQLModel, table=True):
    """The one row that records which schema version wrote this database."""

    __tablename__ = "sparrow_schema"

    id: int = Field(default=1, primary_key=True)
    version: int
    """Bumped on every incompatible change; a newer version than this build knows is refused."""


class SessionRow(SQLModel, table=True):
    """A conversation: its title, configuration (never a secret) and where it was forked from."""

    __tablename__ = "sessions"

    id: str = Field(primary_key=True, max_length=64)
    title: str | None = Field(default=None, max_length=200)
    """None until the first question (or a rename) gives it one."""
    created_at: float
    updated_at: float = Field(index=True)
    last_seq: int = 0
    """Sequence number of the last event; appends reserve numbers by incrementing it."""
    config: dict[str, Any] = Field(default_factory=dict, sa_type=JSON)
    """A SessionConfig as a dict: model, base_url, protocol, settings."""
    parent_id: str | None = Field(default=None, foreign_key="sessions.id", ondelete="SET NULL", max_length=64)
    forked_from: str | None = Field(default=None, max_length=64)
    """Id of the snapshot this session was forked from (informational; the snapshot may be gone)."""


class EventRow(SQLModel, table=True):
    """One event of a session, in order; rows are only ever inserted (and deleted with their session)."""

    __tablename__ = "events"

    session_id: str = Field(primary_key=True, foreign_key="sessions.id", ondelete="CASCADE", max_length=64)
    seq: int = Field(primary_key=True)
    """1-based position in the session, unique per session."""
    run_id: str = Field(max_length=64)
    type: str = Field(max_length=40)
    ts: float
    """The event's own timestamp (Unix time)."""
    payload: str = Field(sa_type=Text)
    """JSON text of ``event.to_dict()``."""


class SnapshotRow(SQLModel, table=True):
    """A named, immutable point in a session: the session's events up to ``upto_seq``."""

    __tablename__ = "snapshots"
    __table_args__ = (UniqueConstraint("session_id", "name"),)

    id: str = Field(primary_key=True, max_length=64)
    session_id: str = Field(foreign_key="sessions.id", ondelete="CASCADE", index=True, max_length=64)
    name: str = Field(max_length=200)
    created_at: float
    upto_seq: int
    title: str | None = Field(default=None, max_length=200)
    """The session's title when the snapshot was taken."""
    config: dict[str, Any] = Field(default_factory=dict, sa_type=JSON)
    """The session's configuration when the snapshot was taken."""


class MemoryRow(SQLModel, table=True):
    """A fact in long-term memory, shared by every session of its scope; searched through ``memory_index``."""

    __tablename__ = "memories"
    __table_args__ = (
        UniqueConstraint("scope", "text_hash"),
        Index("ix_memories_scope_created", "scope", "created_at"),
        {"sqlite_autoincrement": True},
    )

    id: int | None = Field(default=None, primary_key=True)
    """Never reused (AUTOINCREMENT on SQLite), so a stale id cannot delete a newer memory."""
    scope: str = Field(default="default", max_length=64)
    """Whose memory: a user or workspace name; runs only see their own scope."""
    text: str = Field(sa_type=Text)
    """The fact, normalised and checked by ``memory_guard.check_memory``."""
    text_hash: str = Field(max_length=64)
    """SHA-256 of the folded text: the same fact twice in a scope is one memory."""
    origin: str = Field(default="user", max_length=16)
    """Who saved it: ``agent`` (the remember tool) or ``user`` (the Memory page, the CLI)."""
    source_session_id: str | None = Field(default=None, max_length=64, index=True)
    """The session it was saved in; not a foreign key, so the mark survives the session's deletion."""
    created_at: float


class RunOwnerRow(SQLModel, table=True):
    """The run in progress in a session, the process that owns it, and its heartbeat (one row per busy session)."""

    __tablename__ = "run_owners"

    session_id: str = Field(primary_key=True, foreign_key="sessions.id", ondelete="CASCADE", max_length=64)
    """At most one run at a time per session: the primary key enforces it."""
    run_id: str = Field(max_length=64)
    owner: str = Field(max_length=200)
    """``replica:pid`` of the process running it (the replica is ``$SPARROW_REPLICA_ID`` or the host name)."""
    heartbeat: float
    """Unix time the owner last said it is alive; a stale heartbeat means the owner died."""
    cancel_requested: bool = False
    """Set by any process (a Stop on another replica); the owner cancels the run when it sees it."""


TABLES = [
    SchemaRow.__table__,
    SessionRow.__table__,
    EventRow.__table__,
    SnapshotRow.__table__,
    MemoryRow.__table__,
    RunOwnerRow.__table__,
]
"""Sparrow's tables, in creation order (the schema version governs exactly these)."""
