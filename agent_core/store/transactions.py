"""What every part of SessionStore shares (``StoreAccess``: engine, units of work, row lookups); the not-found errors.

Each store method is one unit of work (``with Session(engine)``); writes take the write lock up front (see
``database.writer``), so concurrent writers wait for each other instead of failing.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

from sqlalchemy import Engine
from sqlmodel import Session, SQLModel

from agent_core.store.actors import LOCAL_ADMIN, Actor
from agent_core.store.database import writer
from agent_core.store.records import SessionConfig
from agent_core.store.redaction import Redactor
from agent_core.store.tables import SessionRow, SnapshotRow
from agent_core.store.titles import clean_title

Shown = TypeVar("Shown", bound=SQLModel)


class SessionNotFound(LookupError):
    """No session has this id."""


class SnapshotNotFound(LookupError):
    """No snapshot has this id."""


class NotYours(SessionNotFound):
    """The session exists but is not the actor's; worded exactly as a missing id, so it reveals nothing."""


class SnapshotNotYours(SnapshotNotFound):
    """The snapshot exists but is not the actor's; worded exactly as a missing id, so it reveals nothing."""


def new_id(prefix: str) -> str:
    """A fresh random id such as ``ses_3f2a9c0d1b7e4a55``."""
    return f"{prefix}_{uuid.uuid4().hex[:16]}"


@dataclass(frozen=True)
class StoreAccess:
    """What every part of the store works through: the engine, its write-locking twin, the redactor, the actor.

    The parts (sessions, log, snapshots, dumps, runs, shares) each hold the same one; ``acting_as`` makes a
    store over a copy naming another actor.
    """

    engine: Engine
    writer: Engine
    """The same engine's connections, each taking the write lock as its transaction begins."""
    redact: Redactor
    actor: Actor = LOCAL_ADMIN
    """Who the calls are made for (see ``access``)."""

    @classmethod
    def over(cls, engine: Engine, *, secrets: Iterable[str | None] = ()) -> StoreAccess:
        """Access to ``engine`` for the local admin, redacting ``secrets`` (API keys...) should an event hold one."""
        return cls(engine, writer(engine), Redactor(secrets))

    def seen(self, info: Shown) -> Shown:
        """``info`` (a session or snapshot) as the actor may see it: a share-link viewer is told no owner."""
        return info.model_copy(update={"owner": None}) if self.actor.read_only else info

    def session(self, db: Session, session_id: str, *, write: bool = False) -> SessionRow:
        """The session's row if the actor may read it (change it, with ``write``); else SessionNotFound/NotYours."""
        row = session_row(db, session_id)
        allowed = self.actor.may_write(row.owner) if write else self.actor.may_read(row.id, row.owner)
        if not allowed:
            if write and self.actor.may_read(row.id, row.owner):
                self.actor.check_writable()
            raise NotYours(f"no session {session_id!r}")
        return row

    def snapshot(self, db: Session, snapshot_id: str, *, write: bool = False) -> SnapshotRow:
        """The snapshot's row if the actor may read (change) its session; else SnapshotNotFound/SnapshotNotYours."""
        row = snapshot_row(db, snapshot_id)
        owner = session_row(db, row.session_id).owner  # a claimed session brings its snapshots along
        allowed = self.actor.may_write(owner) if write else self.actor.may_read(row.session_id, owner)
        if allowed and self.actor.shared_upto is not None:
            allowed = row.upto_seq <= self.actor.shared_upto
        if not allowed:
            raise SnapshotNotYours(f"no snapshot {snapshot_id!r}")
        return row

    def new_session_values(self, config: SessionConfig | None, title: str | None) -> dict[str, Any]:
        """A new session's column values, the actor's (its title cleaned and redacted), for a Core insert or a row.

        A Core insert skips making a table model, which costs about a millisecond.
        """
        now = time.time()
        return {
            "id": new_id("ses"),
            "owner": self.actor.owner,
            "title": self.redact(clean_title(title)) if title else None,
            "created_at": now,
            "updated_at": now,
            "last_seq": 0,
            "config": config or SessionConfig(),
        }

    def read(self) -> Session:
        """A read-only unit of work."""
        return Session(self.engine)

    def write(self) -> Session:
        """A unit of work that takes the write lock as it begins; rows stay readable after commit."""
        return Session(self.writer, expire_on_commit=False)


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
