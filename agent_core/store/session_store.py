"""SessionStore: sessions, their append-only event logs, named snapshots and forks, on one engine.

The store is explicit composition: one ``StoreAccess`` (engine, write lock, redactor, actor; see ``transactions``)
shared by one part per kind of thing it holds, each an attribute of the store:

- ``store.sessions`` (``Sessions``, here): create, list, get, rename, update_config, delete, claim, adopt_owner;
- ``store.log`` (``event_log.EventLog``): append, events, stored_events, run_starters;
- ``store.snapshots`` (``snapshots.Snapshots``): save, list, get, events, delete, fork;
- ``store.dumps`` (``dumps.Dumps``): read and add whole sessions (what session files are made of);
- ``store.runs`` (``run_claims.Runs``): interrupted, live_owner, claim, open, request_cancel, events_after;
- ``store.shares`` (``share_links.ShareLinks``): create, list, revoke and open share links.

Each method is its own transaction. ``store.acting_as(actor)`` is a new store over the same access for ``actor``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy import Engine
from sqlmodel import col, delete, select, update

from agent_core.store.actors import Actor
from agent_core.store.adoption import adopt_owner
from agent_core.store.database import create_db_engine
from agent_core.store.dumps import Dumps
from agent_core.store.event_log import EventLog
from agent_core.store.records import SessionConfig, SessionInfo
from agent_core.store.run_claims import Runs
from agent_core.store.share_links import ShareLinks
from agent_core.store.snapshots import Snapshots
from agent_core.store.tables import SessionRow
from agent_core.store.titles import clean_title
from agent_core.store.transactions import NotYours, SessionNotFound, SnapshotNotFound, StoreAccess, new_id

__all__ = ["NotYours", "SessionNotFound", "SessionStore", "SnapshotNotFound", "StoreAccess", "new_id"]

log = logging.getLogger(__name__)


class SessionStore:
    """Sessions, their append-only event logs and snapshots, one part each; every method is its own transaction."""

    def __init__(self, access: StoreAccess) -> None:
        self.access = access
        self.sessions = Sessions(access)
        self.log = EventLog(access)
        self.snapshots = Snapshots(access, self.log)
        self.dumps = Dumps(access)
        self.runs = Runs(access)
        self.shares = ShareLinks(access)

    @classmethod
    def open(cls, url: str | None = None, *, secrets: Iterable[str | None] = ()) -> SessionStore:
        """A store on ``url`` (default: ``$DATABASE_URL`` or ``$SPARROW_DATA_DIR/sparrow.db``).

        ``secrets`` are values (API keys...) to redact should they ever appear in an event.
        """
        return cls(StoreAccess.over(create_db_engine(url), secrets=secrets))

    @property
    def engine(self) -> Engine:
        """The database engine every part uses."""
        return self.access.engine

    @property
    def actor(self) -> Actor:
        """Who the calls are made for (see ``access``)."""
        return self.access.actor

    def acting_as(self, actor: Actor) -> SessionStore:
        """A new store on the same engine, connections and redaction, for ``actor``: it sees and changes theirs only."""
        return SessionStore(replace(self.access, actor=actor))

    def close(self) -> None:
        """Release the engine's connections."""
        self.access.engine.dispose()


@dataclass(frozen=True)
class Sessions:
    """The sessions themselves (``store.sessions``): making, listing, renaming, configuring, deleting, claiming."""

    access: StoreAccess

    def create(self, config: SessionConfig | None = None, *, title: str | None = None) -> SessionInfo:
        """A new, empty session of the actor's; without a title it takes one from its first question."""
        self.access.actor.check_writable()
        row = SessionRow(**self.access.new_session_values(config, title))
        with self.access.write() as db:
            db.add(row)
            db.commit()
            info = SessionInfo.of(row)
        log.info("created session %s", info.id)
        return info

    def list(self, *, limit: int | None = None, unowned: bool = False) -> list[SessionInfo]:
        """The sessions the actor may see (``unowned``: only those without an owner), most recently updated first."""
        query = select(SessionRow).order_by(col(SessionRow.updated_at).desc(), col(SessionRow.id)).limit(limit)
        if self.access.actor.read_only:
            query = query.where(col(SessionRow.id) == self.access.actor.shared_session)
        elif not self.access.actor.is_admin:
            query = query.where(col(SessionRow.owner) == self.access.actor.subject)
        if unowned:
            query = query.where(col(SessionRow.owner).is_(None))
        with self.access.read() as db:
            return [self.access.seen(SessionInfo.of(row)) for row in db.exec(query)]

    def get(self, session_id: str) -> SessionInfo:
        """One session; raises SessionNotFound (NotYours when the actor may not see it)."""
        with self.access.read() as db:
            return self.access.seen(SessionInfo.of(self.access.session(db, session_id)))

    def rename(self, session_id: str, title: str) -> SessionInfo:
        """Give a session a title of its own (the first question no longer decides it)."""
        statement = update(SessionRow).where(col(SessionRow.id) == session_id)
        self._update(statement.values(title=self.access.redact(clean_title(title)), updated_at=time.time()), session_id)
        return self.get(session_id)

    def update_config(self, session_id: str, config: SessionConfig) -> None:
        """Record the configuration the session's next runs use (model, endpoint, protocol, settings)."""
        statement = update(SessionRow).where(col(SessionRow.id) == session_id)
        self._update(statement.values(config=config, updated_at=time.time()), session_id)

    def delete(self, session_id: str) -> None:
        """Delete a session with its events and snapshots (sessions forked from it stay, unparented)."""
        self._update(delete(SessionRow).where(col(SessionRow.id) == session_id), session_id)
        log.info("deleted session %s", session_id)

    def claim(self, session_id: str) -> SessionInfo:
        """Make a session without an owner the actor's (admins only; ``ValueError`` if it already has one)."""
        if not self.access.actor.is_admin or self.access.actor.owner is None:
            raise NotYours(f"no session {session_id!r}")
        with self.access.write() as db:
            row = self.access.session(db, session_id, write=True)
            if row.owner is not None:
                raise ValueError(f"session {session_id!r} already has an owner")
            db.exec(update(SessionRow).where(col(SessionRow.id) == session_id).values(owner=self.access.actor.owner))
            db.commit()
        log.info("session %s claimed by %s", session_id, self.access.actor.owner)
        return self.get(session_id)

    def adopt_owner(self, subject: str) -> int:
        """Make what ``subject`` (bare) owns the acting user's (see ``adoption``); the number of rows re-keyed."""
        return adopt_owner(self.access, subject)

    def _update(self, statement: Any, session_id: str) -> None:
        with self.access.write() as db:
            self.access.session(db, session_id, write=True)
            if db.exec(statement).rowcount == 0:
                raise SessionNotFound(f"no session {session_id!r}")
            db.commit()
