"""Long-term memory: facts saved across sessions, per scope (a user or a workspace), with full-text search.

``MemoryStore`` keeps them in the sessions' database (``MemoryStore(store.engine)``, or ``MemoryStore.open(url)``),
each method its own transaction, and hands out ``MemoryRecord``s: ``add`` (through the poisoning guard,
``guard.check_memory``, which refuses instructions aimed at the agent, secrets and texts of the wrong length with
``MemoryRefused``; the same fact saved twice, ignoring case and spacing, returns the memory already saved),
``search`` (best first, each with a score), ``list``, ``delete``, ``clear``; the remember/recall tools, the Memory
page and ``python -m agent_core memory`` use it. Each memory records the session it came from; deleting that
session keeps the memory and its mark (``source_deleted`` then says so).
"""

from __future__ import annotations

import builtins
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy import Engine, func
from sqlmodel import Session, col, delete, select

from agent_core.guards.untrusted import visible
from agent_core.longterm.guard import DEFAULT_SCOPE, MemoryRefused, check_memory, check_scope
from agent_core.store.access import LOCAL_ADMIN, Actor
from agent_core.store.database import create_db_engine, lock_name, writer
from agent_core.store.memory import (
    has_fts,
    in_scope,
    owned_by,
    postgresql_scores,
    query_terms,
    search_statement,
    text_hash,
)
from agent_core.store.sessions import adopt_memories
from agent_core.store.tables import UNTITLED, MemoryRow, SessionRow


class MemoryNotFound(LookupError):
    """No memory has this id (in this scope)."""


@dataclass(frozen=True)
class MemoryRecord:
    """One saved fact, as listed, searched and recalled."""

    id: int
    scope: str
    text: str
    created_at: float
    """Unix time it was saved."""
    origin: str = "user"
    """``agent`` (saved by the remember tool during a run), ``user`` (Memory page, CLI) or ``outside`` (saved by
    a run that had read outside content)."""
    source_session_id: str | None = None
    """The session it was saved in (kept when that session is deleted)."""
    source_title: str | None = None
    """That session's title, or None when there is no source session or it was deleted."""
    score: float | None = None
    """Search results only: query terms found, plus a 0-1 relevance (FTS5's BM25, the same on PostgreSQL)."""
    rank: int | None = None
    """Search results only: 1 for the best match, 2 for the next... (what people are shown, not the score)."""
    existing: bool = False
    """``add`` only: True when the same fact was already saved and that memory is returned instead."""

    @property
    def source_deleted(self) -> bool:
        """True when the memory came from a session that no longer exists."""
        return self.source_session_id is not None and self.source_title is None

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able form (tool details, ``memory list --json``)."""
        return {
            "id": self.id,
            "scope": self.scope,
            "text": self.text,
            "created_at": self.created_at,
            "origin": self.origin,
            "source_session_id": self.source_session_id,
            "source_title": self.source_title,
            "source_deleted": self.source_deleted,
            "score": self.score,
            "rank": self.rank,
        }


log = logging.getLogger(__name__)

MAX_PER_SCOPE = 5000
"""Memories a scope may hold; a run that keeps saving cannot fill the disk."""
MAX_SEARCH_RESULTS = 50
ORIGINS = ("agent", "user", "outside")


class MemoryStore:
    """Long-term memories in the sessions' database; every method is its own transaction."""

    def __init__(
        self, engine: Engine, *, guard: Callable[[str], str] = check_memory, actor: Actor = LOCAL_ADMIN
    ) -> None:
        actor.check_writable()  # a share link opens one session, never anyone's memory
        self.engine = engine
        self.owner = actor.owner
        """Whose memories this store reads and writes (None: those saved without sign-in)."""
        self.actor = actor
        self.guard = guard
        """Normalises a text to save, or raises MemoryRefused (default:
        ``agent_core.longterm.guard.check_memory``)."""
        self._writer = writer(engine)
        self._fts: bool | None = None

    @classmethod
    def open(cls, url: str | None = None) -> MemoryStore:
        """A memory store on ``url`` (default: ``$DATABASE_URL`` or ``$SPARROW_DATA_DIR/sparrow.db``)."""
        return cls(create_db_engine(url))

    def close(self) -> None:
        """Release the engine's connections."""
        self.engine.dispose()

    def add(
        self,
        text: str,
        scope: str = DEFAULT_SCOPE,
        source_session_id: str | None = None,
        *,
        origin: str = "user",
    ) -> MemoryRecord:
        """Save a fact after the guard accepts it; the same fact already saved in the scope is returned instead."""
        if origin not in ORIGINS:
            raise ValueError(f"origin must be one of {', '.join(ORIGINS)}")
        scope = check_scope(scope)
        clean = self.guard(text)
        key = text_hash(clean, self.owner)
        with Session(self._writer, expire_on_commit=False) as db:
            lock_name(db.connection(), f"memories:{scope}")  # the duplicate and size checks below hold until commit
            same = db.exec(self._rows().where(col(MemoryRow.scope) == scope, col(MemoryRow.text_hash) == key)).first()
            if same is not None:
                return replace(_record(*same), existing=True)
            if db.exec(select(func.count()).where(in_scope(scope, self.owner))).one() >= MAX_PER_SCOPE:
                raise MemoryRefused(
                    "full", f"scope {scope!r} already holds {MAX_PER_SCOPE} memories; delete some first"
                )
            row = MemoryRow(
                scope=scope,
                text=clean,
                text_hash=key,
                origin=origin,
                source_session_id=source_session_id,
                created_at=time.time(),
                owner=self.owner,
            )
            db.add(row)
            db.commit()
            record = _record(*db.exec(self._rows().where(col(MemoryRow.id) == row.id)).one())
        log.info("saved memory %s in scope %s (from session %s)", record.id, scope, source_session_id)
        return record

    def get(self, memory_id: int) -> MemoryRecord:
        """One memory; raises MemoryNotFound."""
        with Session(self.engine) as db:
            found = db.exec(self._rows().where(col(MemoryRow.id) == memory_id)).first()
        if found is None:
            raise MemoryNotFound(f"no memory {memory_id}")
        return _record(*found)

    def search(self, query: str, scope: str = DEFAULT_SCOPE, limit: int = 5) -> builtins.list[MemoryRecord]:
        """The scope's memories matching ``query``, best first, each with its ``score`` and ``rank``."""
        terms = query_terms(query)
        if not terms.terms or limit < 1:
            return []
        limit = min(limit, MAX_SEARCH_RESULTS)
        with Session(self.engine) as db:
            if self.engine.dialect.name == "postgresql":
                scores = postgresql_scores(db.connection(), terms, check_scope(scope), limit, self.owner)
            else:
                statement = search_statement(
                    terms,
                    check_scope(scope),
                    limit,
                    dialect=self.engine.dialect.name,
                    fts=self._has_fts(db),
                    owner=self.owner,
                )
                scores = {memory_id: float(score) for memory_id, score in db.exec(statement)}  # pyright: ignore[reportCallIssue, reportArgumentType]  # exec names sqlmodel's Select; SQLAlchemy's runs alike
            rows = db.exec(self._rows().where(col(MemoryRow.id).in_(scores))).all() if scores else []
        records = [replace(_record(*row), score=round(scores[row[0].id], 4)) for row in rows]
        ordered = sorted(records, key=lambda r: (-(r.score or 0), -r.created_at, -r.id))
        return [replace(record, rank=i) for i, record in enumerate(ordered, start=1)]

    def list(self, scope: str = DEFAULT_SCOPE, *, limit: int | None = None) -> builtins.list[MemoryRecord]:
        """The scope's memories, newest first."""
        query = self._rows().where(col(MemoryRow.scope) == check_scope(scope))
        query = query.order_by(col(MemoryRow.created_at).desc(), col(MemoryRow.id).desc()).limit(limit)
        with Session(self.engine) as db:
            return [_record(*row) for row in db.exec(query)]

    def count(self, scope: str = DEFAULT_SCOPE) -> int:
        """How many memories the scope holds."""
        with Session(self.engine) as db:
            return int(db.exec(select(func.count()).where(in_scope(scope, self.owner))).one())

    def scopes(self) -> builtins.list[str]:
        """Scopes that hold memories, in name order."""
        with Session(self.engine) as db:
            query = select(MemoryRow.scope).where(owned_by(self.owner)).distinct().order_by(col(MemoryRow.scope))
            return [str(s) for s in db.exec(query)]

    def delete(self, memory_id: int, *, scope: str | None = None) -> None:
        """Delete one memory (only if it is in ``scope``, when given); raises MemoryNotFound."""
        statement = delete(MemoryRow).where(col(MemoryRow.id) == memory_id, owned_by(self.owner))
        if scope is not None:
            statement = statement.where(col(MemoryRow.scope) == scope)
        with Session(self._writer) as db:
            if db.exec(statement).rowcount == 0:
                where = f" in scope {scope!r}" if scope is not None else ""
                raise MemoryNotFound(f"no memory {memory_id}{where}")
            db.commit()
        log.info("deleted memory %s", memory_id)

    def clear(self, scope: str) -> int:
        """Delete every memory of ``scope``; returns how many there were."""
        with Session(self._writer) as db:
            deleted = db.exec(delete(MemoryRow).where(in_scope(check_scope(scope), self.owner))).rowcount
            db.commit()
        log.info("cleared %d memories of scope %s", deleted, scope)
        return int(deleted)

    def claim_unowned(self) -> int:
        """Make every memory saved without sign-in the actor's (admins only); returns how many were claimed.

        A fact the admin already holds in the same scope is not claimed twice: the unowned copy is deleted.
        """
        if not self.actor.is_admin or self.owner is None:
            raise PermissionError("only a signed-in admin can claim memories saved without sign-in")
        with Session(self._writer) as db:
            claimed = adopt_memories(db, None, self.owner)
            db.commit()
        log.info("%s claimed %d memories", self.owner, claimed)
        return claimed

    def unowned_count(self) -> int:
        """How many memories were saved without sign-in (what an admin may claim)."""
        with Session(self.engine) as db:
            return int(db.exec(select(func.count()).where(owned_by(None))).one())

    def _rows(self) -> Any:
        """``_rows()`` restricted to this store's owner."""
        return _rows().where(owned_by(self.owner))

    def _has_fts(self, db: Session) -> bool:
        if self._fts is None:
            self._fts = has_fts(db.connection())
        return self._fts


def _rows() -> Any:
    """Memory rows with the id and title of their source session (None when it has none or it was deleted)."""
    source = col(SessionRow.id) == col(MemoryRow.source_session_id)
    return select(MemoryRow, SessionRow.id, SessionRow.title).outerjoin(SessionRow, source)


def _record(row: MemoryRow, session_id: str | None, title: str | None) -> MemoryRecord:
    return MemoryRecord(
        id=int(row.id or 0),
        scope=row.scope,
        text=row.text,
        created_at=row.created_at,
        origin=row.origin,
        source_session_id=row.source_session_id,
        source_title=visible(title or UNTITLED) if session_id is not None else None,
    )
