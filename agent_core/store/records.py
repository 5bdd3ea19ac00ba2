"""Plain, immutable views of what the store holds; the API returns these, never ORM rows.

``SessionInfo`` and ``SnapshotInfo`` are views of the tables in ``models.py``: they inherit the same field
groups, so a field is declared once. The store builds them from its own rows without validating again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

from pydantic import ConfigDict, Field
from sqlmodel import SQLModel

from agent_core.guards.untrusted import visible
from agent_core.store.session_config import SessionConfig
from agent_core.store.tables import (
    Configured,
    Identified,
    Imported,
    Owned,
    SessionHead,
    SessionLineage,
    SessionRecord,
    SessionRow,
    SessionSeq,
    SnapshotOwner,
    SnapshotPoint,
    SnapshotRow,
)
from agent_core.store.titles import UNTITLED

__all__ = ["InterruptedRun", "SessionConfig", "SessionDump", "SessionInfo", "SnapshotInfo", "StoredEvent"]

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
    """Everything about one session, as the snapshot file carries it (``title`` is the raw one, maybe None)."""

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
