"""What the store holds, declared once: the SQLModel tables, the records the API returns, and their fields' rules.

Every field of a session or snapshot is declared once, in a small non-table group (as the SQLModel tutorial's
``HeroBase``); the table (``SessionRow``), the API record (``SessionInfo``) and the session file's record
(``SessionRecord``, validated strictly by ``files``) each inherit the groups they hold. The groups carry both the
column settings (ignored outside a table) and the checks an imported file must pass (only a validated model runs
them); the store builds records from its own rows without validating again. Pydantic orders inherited fields from
the last base to the first, so a class lists its groups in reverse column order: that keeps each table's columns,
and each file record's keys, in their historic order. A session's configuration (``SessionConfig``) never holds a
secret, and its title comes from its first question without a model call (``title_from_question``).
"""

from __future__ import annotations

import logging
import re
import unicodedata
from dataclasses import dataclass
from typing import Annotated, Any, NamedTuple

from annotated_types import Ge, Interval, Le
from pydantic import AfterValidator, AllowInfNan, BaseModel, ConfigDict, StringConstraints, field_validator
from sqlalchemy import JSON, Dialect, Table, Text, TypeDecorator
from sqlmodel import Field, Index, SQLModel, UniqueConstraint

from agent_core.guards.json_limits import MAX_TIME
from agent_core.guards.untrusted import visible
from agent_core.store.redaction import scrub_settings, scrub_url

OWNER_MAX_CHARS = 520
"""Longest owner stored: ``ISSUER#SUBJECT`` (an issuer URL and a subject of at most 255 characters each)."""
UNTITLED = "New session"
"""Shown for a session that has no question yet."""
TITLE_MAX_CHARS = 200
"""Longest title the store keeps (renames and imports alike)."""

_MARKUP = re.compile(r"^(?:[#>*\-+`~]+|\d+[.)])\s*")
_CLOSING = " \t,;:-–—([{/\\"


# ── titles and configuration ──────────────────────────────────────────────────────────────────────


def title_from_question(question: str, max_width: int = 60) -> str:
    """A one-line title: the first non-empty line of ``question``, cut at a word near ``max_width`` columns."""
    line = next((ln for ln in question.splitlines() if ln.strip(" \t`~")), "")
    line = visible(" ".join(_MARKUP.sub("", line.strip()).split()))
    if not line:
        return UNTITLED
    if _width(line) <= max_width:
        return line
    cut = _cut_index(line, max_width - 1)
    space = line.rfind(" ", 0, cut + 1)
    if space > cut // 2:
        cut = space
    return line[:cut].rstrip(_CLOSING) + "…"


def clean_title(title: str) -> str:
    """A user-given title on one line, whitespace collapsed, at most TITLE_MAX_CHARS characters."""
    text = visible(" ".join(title.split()))
    if not text:
        raise ValueError("a title cannot be empty")
    return text[:TITLE_MAX_CHARS]


def _width(text: str) -> int:
    return sum(_char_width(c) for c in text)


def _char_width(char: str) -> int:
    """East Asian wide and full-width characters take two columns."""
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def _cut_index(text: str, columns: int) -> int:
    used = 0
    for index, char in enumerate(text):
        used += _char_width(char)
        if used > columns:
            return index
    return len(text)


class SessionConfig(BaseModel):
    """How a session's runs are configured: model, endpoint, protocol and agent settings. Never a secret."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    model: str = Field(default="", max_length=200)
    """Model name as sent to the endpoint."""
    base_url: str | None = Field(default=None, max_length=2000)
    """OpenAI-compatible endpoint, without credentials; None for the provider's default."""
    protocol: str = Field(default="react", max_length=40)
    """``react`` or ``tools``."""
    settings: dict[str, Any] = Field(default_factory=dict)
    """Agent settings as ``AgentSettings.to_record`` writes them (read back with ``from_record``); secret-named keys
    are dropped."""

    @field_validator("base_url")
    @classmethod
    def _no_credentials_in_url(cls, value: str | None) -> str | None:
        return scrub_url(value)

    @field_validator("settings")
    @classmethod
    def _no_secret_settings(cls, value: dict[str, Any]) -> dict[str, Any]:
        return scrub_settings(value)


MAX_SEQ = 2**53
"""Largest sequence number a file may carry (the largest integer a JSON double holds exactly)."""
ID_MAX_CHARS = 64

Id = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9_.\-]{1,64}$")]
"""A session or snapshot id: letters, digits, ``_``, ``.``, ``-``; safe in a URL and a file name."""
Title = Annotated[str, StringConstraints(max_length=TITLE_MAX_CHARS), AfterValidator(clean_title)]
"""A title or snapshot name, cleaned (``clean_title``); the column's ``max_length`` does not reach inside a union."""
Seq = Annotated[int, Interval(ge=0, le=MAX_SEQ)]
Time = Annotated[float, Ge(0), Le(MAX_TIME), AllowInfNan(False)]
"""Unix seconds between 1970 and 2100: a time in milliseconds (or ``2**63``) is refused, not misread."""


class ConfigJSON(TypeDecorator[SessionConfig]):
    """A SessionConfig stored as a JSON column (the column itself is plain ``JSON``)."""

    impl = JSON
    cache_ok = True

    def process_bind_param(self, value: Any, dialect: Dialect) -> Any:
        """The config as a dict (a dict passes through)."""
        return value.model_dump() if isinstance(value, SessionConfig) else value

    def process_result_value(self, value: Any, dialect: Dialect) -> SessionConfig | None:
        """The stored dict as a SessionConfig (defaults, logged, when the row is damaged: listings stay whole)."""
        if value is None:
            return None
        try:
            return SessionConfig.model_validate(value)
        except ValueError as exc:
            logging.getLogger(__name__).warning("a stored session config is damaged: %s", str(exc).splitlines()[0])
            return SessionConfig()


# ── field groups ────────────────────────────────────────────────────────────────────────────────


class Identified(SQLModel):
    """A session's or snapshot's id."""

    id: Id = Field(primary_key=True, max_length=ID_MAX_CHARS)


class Configured(SQLModel):
    """The configuration a session's runs use (for a snapshot: the session's, when it was taken)."""

    config: SessionConfig = Field(default_factory=SessionConfig, sa_type=ConfigJSON)
    """Model, base_url, protocol, settings; never a secret."""


class SessionHead(SQLModel):
    """A session's title and times."""

    title: Title | None = Field(default=None, max_length=TITLE_MAX_CHARS)
    """None until the first question (or a rename) gives it one."""
    created_at: Time
    updated_at: Time = Field(index=True)
    """Time of the last event, rename or configuration change."""


class SessionSeq(SQLModel):
    """How far a session's event log goes."""

    last_seq: int = 0
    """Sequence number of the last event (0 when it has none); appends reserve numbers by incrementing it."""


class SessionLineage(SQLModel):
    """Where a session was forked from."""

    parent_id: Id | None = Field(default=None, foreign_key="sessions.id", ondelete="SET NULL", max_length=ID_MAX_CHARS)
    """The session it was forked from, if it still exists here."""
    forked_from: Id | None = Field(default=None, max_length=ID_MAX_CHARS)
    """Id of the snapshot it was forked from (informational; the snapshot may be gone)."""


class SnapshotOwner(SQLModel):
    """The session a snapshot belongs to."""

    session_id: str = Field(foreign_key="sessions.id", ondelete="CASCADE", index=True, max_length=ID_MAX_CHARS)


class SnapshotPoint(SQLModel):
    """A snapshot's name and the point of its session it holds."""

    name: Title = Field(max_length=TITLE_MAX_CHARS)
    created_at: Time
    upto_seq: Seq
    """The snapshot holds the session's events with ``seq <= upto_seq``."""
    title: Title | None = Field(default=None, max_length=TITLE_MAX_CHARS)
    """The session's title when the snapshot was taken (None if it had none yet)."""


class Owned(SQLModel):
    """Who owns a session, snapshot or memory (never in a session file: an imported file becomes the importer's)."""

    owner: str | None = Field(default=None, max_length=OWNER_MAX_CHARS, index=True)
    """The owner's OpenID Connect subject (or CLI ``--user``); None: made without sign-in, an admin may claim it."""


class Imported(SQLModel):
    """When a session came in from a session file (never in the file: each copy is marked where it is imported)."""

    imported_at: float | None = None
    """Unix time of the import; None for a session made here (a new chat, a fork, a rerun)."""


class SessionRecord(Configured, SessionLineage, SessionHead, Identified):
    """A session as the session file carries it (no ``last_seq``: the file's events give it)."""


class SnapshotRecord(Configured, SnapshotPoint, Identified):
    """A snapshot as the session file carries it (inside its session, so without ``session_id``)."""


# ── tables ──────────────────────────────────────────────────────────────────────────────────────


class SessionRow(Imported, Owned, SessionLineage, Configured, SessionSeq, SessionHead, Identified, table=True):
    """A conversation: its title, configuration (never a secret) and where it was forked from."""

    __tablename__ = "sessions"  # pyright: ignore[reportAssignmentType]  # SQLModel types __tablename__ as its declared_attr default


class EventRow(SQLModel, table=True):
    """One event of a session, in order; rows are only ever inserted (and deleted with their session)."""

    __tablename__ = "events"  # pyright: ignore[reportAssignmentType]  # SQLModel types __tablename__ as its declared_attr default

    session_id: str = Field(primary_key=True, foreign_key="sessions.id", ondelete="CASCADE", max_length=64)
    seq: int = Field(primary_key=True)
    """1-based position in the session, unique per session."""
    run_id: str = Field(max_length=64)
    type: str = Field(max_length=40)
    ts: float
    """The event's own timestamp (Unix time)."""
    payload: str = Field(sa_type=Text)
    """JSON text of ``event.to_dict()``."""


class SnapshotRow(Owned, Configured, SnapshotPoint, SnapshotOwner, Identified, table=True):
    """A named, immutable point in a session: the session's events up to ``upto_seq``."""

    __tablename__ = "snapshots"  # pyright: ignore[reportAssignmentType]  # SQLModel types __tablename__ as its declared_attr default
    __table_args__ = (UniqueConstraint("session_id", "name"),)


class MemoryRow(SQLModel, table=True):
    """A fact in long-term memory, shared by every session of its scope; searched through ``memory``."""

    __tablename__ = "memories"  # pyright: ignore[reportAssignmentType]  # SQLModel types __tablename__ as its declared_attr default
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
    """The fact, normalised and checked by ``longterm.guard.check_memory``."""
    text_hash: str = Field(max_length=64)
    """SHA-256 of the folded text: the same fact twice in a scope is one memory."""
    origin: str = Field(default="user", max_length=16)
    """Who saved it: ``agent`` (the remember tool) or ``user`` (the Memory page, the CLI)."""
    source_session_id: str | None = Field(default=None, max_length=64, index=True)
    """The session it was saved in; not a foreign key, so the mark survives the session's deletion."""
    created_at: float
    owner: str | None = Field(default=None, max_length=OWNER_MAX_CHARS, index=True)
    """Whose memory (OpenID Connect subject); None: saved without sign-in. Runs and pages see only their owner's."""


class RunOwnerRow(SQLModel, table=True):
    """The run in progress in a session, the process that owns it, and its heartbeat (one row per busy session)."""

    __tablename__ = "run_owners"  # pyright: ignore[reportAssignmentType]  # SQLModel types __tablename__ as its declared_attr default

    session_id: str = Field(primary_key=True, foreign_key="sessions.id", ondelete="CASCADE", max_length=64)
    """At most one run at a time per session: the primary key enforces it."""
    run_id: str = Field(max_length=64)
    owner: str = Field(max_length=200)
    """``replica:pid`` of the process running it (the replica is ``$SPARROW_REPLICA_ID`` or the host name)."""
    heartbeat: float
    """Unix time the owner last said it is alive; a stale heartbeat means the owner died."""
    cancel_requested: bool = False
    """Set by any process (a Stop on another replica); the owner cancels the run when it sees it."""


class RunRow(SQLModel, table=True):
    """Who started each run of a session (attribution); written with the run's ``run_started`` event."""

    __tablename__ = "runs"  # pyright: ignore[reportAssignmentType]  # SQLModel types __tablename__ as its declared_attr default

    session_id: str = Field(primary_key=True, foreign_key="sessions.id", ondelete="CASCADE", max_length=ID_MAX_CHARS)
    run_id: str = Field(primary_key=True, max_length=ID_MAX_CHARS)
    started_by: str = Field(max_length=OWNER_MAX_CHARS)
    """The starter's email, else subject, else ``local`` (no sign-in)."""
    started_at: float


class ShareLinkRow(SQLModel, table=True):
    """A read-only link to one session (or one snapshot of it); only the SHA-256 of its token is kept."""

    __tablename__ = "share_links"  # pyright: ignore[reportAssignmentType]  # SQLModel types __tablename__ as its declared_attr default

    id: str = Field(primary_key=True, max_length=ID_MAX_CHARS)
    token_hash: str = Field(max_length=64, unique=True)
    """Hex SHA-256 of the token; the token itself is shown once, to its creator."""
    session_id: str = Field(foreign_key="sessions.id", ondelete="CASCADE", index=True, max_length=ID_MAX_CHARS)
    snapshot_id: str | None = Field(default=None, foreign_key="snapshots.id", ondelete="CASCADE", max_length=64)
    """Set for a link to a snapshot: the viewer sees the session's events up to the snapshot's point."""
    created_by: str | None = Field(default=None, max_length=OWNER_MAX_CHARS)
    """The creator's subject (None without sign-in)."""
    created_at: float
    expires_at: float | None = None
    """Unix time after which the link no longer opens anything (None: until revoked)."""
    revoked_at: float | None = None
    allow_anonymous: bool = False
    """True: works for people who are not signed in; False: the viewer must sign in (any account) first."""


def table_of(row: type[SQLModel]) -> Table:
    """The SQLAlchemy table of a table model."""
    return row.__table__  # pyright: ignore[reportAttributeAccessIssue]  # SQLModel sets it on table classes, undeclared


TABLES = [
    table_of(SessionRow),
    table_of(EventRow),
    table_of(SnapshotRow),
    table_of(MemoryRow),
    table_of(RunOwnerRow),
    table_of(RunRow),
    table_of(ShareLinkRow),
]
"""The store's tables (the experiments add theirs): a database holding one of these names must be Sparrow's."""


# ── records: what the store returns, never ORM rows ───────────────────────────────────────────────


FROZEN: Any = ConfigDict(frozen=True)  # Any: model_config is typed as SQLModelConfig, which sqlmodel does not export


def fields_of(source: object, shape: type[SQLModel]) -> dict[str, Any]:
    """The values of ``shape``'s fields, read from ``source`` (a row or another view holding them)."""
    return {name: getattr(source, name) for name in shape.model_fields}


class SessionInfo(Imported, Owned, SessionLineage, Configured, SessionSeq, SessionHead, Identified):
    """One session as listed and opened."""

    model_config = FROZEN

    title: str  # pyright: ignore[reportIncompatibleVariableOverride, reportGeneralTypeIssues]  # the display title is never None
    """Display title: the renamed title, else one made from the first question, else ``New session``."""

    @classmethod
    def of(cls, row: SessionRow) -> SessionInfo:
        """The view of a stored row."""
        values: dict[str, Any] = fields_of(row, cls) | {"title": visible(row.title or UNTITLED)}
        return cls.model_construct(**values)


class SnapshotInfo(Owned, Configured, SnapshotPoint, SnapshotOwner, Identified):
    """A named, immutable point in a session: its events up to ``upto_seq``."""

    model_config = FROZEN

    @classmethod
    def of(cls, row: SnapshotRow) -> SnapshotInfo:
        """The view of a stored row."""
        return cls.model_construct(**fields_of(row, cls))


class StoredEvent(NamedTuple):
    """An event row as stored: ``payload`` is the JSON text of ``event.to_dict()``."""

    seq: int
    run_id: str
    type: str
    ts: float
    payload: str


class SessionDump(SessionRecord):
    """Everything about one session, as the session file carries it (``title`` is the raw one, maybe None)."""

    model_config = FROZEN

    events: list[StoredEvent] = Field(default_factory=list)
    snapshots: list[SnapshotInfo] = Field(default_factory=list)


@dataclass(frozen=True)
class InterruptedRun:
    """The last run of a session has no ``run_finished`` event: the process died (or is still running)."""

    run_id: str
    question: str
    started_seq: int
    """Sequence number of its ``run_started`` event."""
    last_seq: int
    """Sequence number of the last event written for it."""
    last_event_at: float
    """Unix time of that event: a run still in progress elsewhere has a recent one."""
