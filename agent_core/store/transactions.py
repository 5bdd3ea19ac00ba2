"""The base every part of SessionStore shares: the engine, units of work, row lookups and the not-found errors.

Each store method is one unit of work (``with Session(engine)``); writes take the write lock up front (see
``database.writer``), so concurrent writers wait for each other instead of failing.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable

from sqlalchemy import Engine
from sqlmodel import Session

from agent_core.store.database import writer
from agent_core.store.models import SessionRow, SnapshotRow
from agent_core.store.redaction import Redactor


class SessionNotFound(LookupError):
    """No session has this id."""


class SnapshotNotFound(LookupError):
    """No snapshot has this id."""


def new_id(prefix: str) -> str:
    """A fresh random id such as ``ses_3f2a9c0d1b7e4a55``."""
    return f"{prefix}_{uuid.uuid4().hex[:16]}"


class StoreBase:
    """An engine, its write-locking twin and the redactor of known secrets."""

    def __init__(self, engine: Engine, *, secrets: Iterable[str | None] = ()) -> None:
        self.engine = engine
        self._writer = writer(engine)
        self._redact = Redactor(secrets)

    def _read(self) -> Session:
        """A read-only unit of work."""
        return Session(self.engine)

    def _write(self) -> Session:
        """A unit of work that takes the write lock as it begins; rows stay readable after commit."""
        return Session(self._writer, expire_on_commit=False)


def session_row(db: Session, session_id: str) -> SessionRow:
    """The session's row; raises SessionNotFound."""
    row = db.get(SessionRow, session_id)
    if row is None:
        raise SessionNotFound(f"no session {session_id!r}")
    return row


def snapshot_row(db: Session, snapshot_id: str) -> SnapshotRow:
    """The snapshot's row; raises SnapshotNotFound."""
    row = db.get(SnapshotRow, snapshot_id)
    if row is None:
        raise SnapshotNotFound(f"no snapshot {snapshot_id!r}")
    return row
