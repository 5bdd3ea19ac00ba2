"""SessionStore: sessions, their append-only event logs, named snapshots and forks, on one engine.

The store is put together from one part per kind of thing it holds: ``event_log`` (appending and
reading events), ``snapshots`` (snapshots and forks), ``runs`` (the interrupted run), ``dumps`` (whole
sessions for the session file); this module adds the sessions themselves. Each method is its own
transaction (see ``transactions``).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable
from typing import Any

from sqlmodel import col, delete, select, update

from agent_core.store.adoption import Adoption
from agent_core.store.database import create_db_engine
from agent_core.store.dumps import Dumps
from agent_core.store.records import SessionConfig, SessionInfo
from agent_core.store.run_claims import RunControl
from agent_core.store.run_queries import RunQueries
from agent_core.store.share_links import ShareLinks
from agent_core.store.snapshots import Snapshots
from agent_core.store.tables import SessionRow
from agent_core.store.titles import clean_title
from agent_core.store.transactions import NotYours, SessionNotFound, SnapshotNotFound, new_id

__all__ = ["NotYours", "SessionNotFound", "SessionStore", "SnapshotNotFound", "new_id"]

log = logging.getLogger(__name__)


class SessionStore(Snapshots, Dumps, RunQueries, ShareLinks, RunControl, Adoption):
    """Sessions, their append-only event logs and snapshots; every method is its own transaction."""

    @classmethod
    def open(cls, url: str | None = None, *, secrets: Iterable[str | None] = ()) -> SessionStore:
        """A store on ``url`` (default: ``$DATABASE_URL`` or ``$SPARROW_DATA_DIR/sparrow.db``).

        ``secrets`` are values (API keys...) to redact should they ever appear in an event.
        """
        return cls(create_db_engine(url), secrets=secrets)

    def close(self) -> None:
        """Release the engine's connections."""
        self.engine.dispose()

    def create_session(self, config: SessionConfig | None = None, *, title: str | None = None) -> SessionInfo:
        """A new, empty session of the actor's; without a title it takes one from its first question."""
        self.actor.check_writable()
        row = self._new_session_row(config, title)
        with self._write() as db:
            db.add(row)
            db.commit()
            info = SessionInfo.of(row)
        log.info("created session %s", info.id)
        return info

    def list_sessions(self, *, limit: int | None = None, unowned: bool = False) -> list[SessionInfo]:
        """The sessions the actor may see (``unowned``: only those without an owner), most recently updated first."""
        query = select(SessionRow).order_by(col(SessionRow.updated_at).desc(), col(SessionRow.id)).limit(limit)
        if self.actor.read_only:
            query = query.where(col(SessionRow.id) == self.actor.shared_session)
        elif not self.actor.is_admin:
            query = query.where(col(SessionRow.owner) == self.actor.subject)
        if unowned:
            query = query.where(col(SessionRow.owner).is_(None))
        with self._read() as db:
            return [self._seen(SessionInfo.of(row)) for row in db.exec(query)]

    def get_session(self, session_id: str) -> SessionInfo:
        """One session; raises SessionNotFound (NotYours when the actor may not see it)."""
        with self._read() as db:
            return self._seen(SessionInfo.of(self._session(db, session_id)))

    def rename_session(self, session_id: str, title: str) -> SessionInfo:
        """Give a session a title of its own (the first question no longer decides it)."""
        statement = update(SessionRow).where(col(SessionRow.id) == session_id)
        self._update(statement.values(title=self._redact(clean_title(title)), updated_at=time.time()), session_id)
        return self.get_session(session_id)

    def update_config(self, session_id: str, config: SessionConfig) -> None:
        """Record the configuration the session's next runs use (model, endpoint, protocol, settings)."""
        statement = update(SessionRow).where(col(SessionRow.id) == session_id)
        self._update(statement.values(config=config, updated_at=time.time()), session_id)

    def delete_session(self, session_id: str) -> None:
        """Delete a session with its events and snapshots (sessions forked from it stay, unparented)."""
        self._update(delete(SessionRow).where(col(SessionRow.id) == session_id), session_id)
        log.info("deleted session %s", session_id)

    def claim_session(self, session_id: str) -> SessionInfo:
        """Make a session without an owner the actor's (admins only; ``ValueError`` if it already has one)."""
        if not self.actor.is_admin or self.actor.owner is None:
            raise NotYours(f"no session {session_id!r}")
        with self._write() as db:
            row = self._session(db, session_id, write=True)
            if row.owner is not None:
                raise ValueError(f"session {session_id!r} already has an owner")
            db.exec(update(SessionRow).where(col(SessionRow.id) == session_id).values(owner=self.actor.owner))
            db.commit()
        log.info("session %s claimed by %s", session_id, self.actor.owner)
        return self.get_session(session_id)

    def _update(self, statement: Any, session_id: str) -> None:
        with self._write() as db:
            self._session(db, session_id, write=True)
            if db.exec(statement).rowcount == 0:
                raise SessionNotFound(f"no session {session_id!r}")
            db.commit()
