"""SessionStore: sessions, their append-only event logs, named snapshots and forks, on one engine.

Each method is one unit of work (``with Session(engine)``); writes take the write lock up front (see
``database.writer``), so concurrent writers wait for each other instead of failing.
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import Engine, bindparam, literal
from sqlmodel import Session, col, delete, func, insert, select, update

from agent_core.events import Event, RunStarted
from agent_core.store.codec import decode, encode, gc_paused
from agent_core.store.database import create_db_engine, writer
from agent_core.store.models import EventRow, SessionRow, SnapshotRow
from agent_core.store.records import (
    InterruptedRun,
    SessionConfig,
    SessionDump,
    SessionInfo,
    SnapshotInfo,
    StoredEvent,
)
from agent_core.store.redaction import Redactor
from agent_core.store.titles import TITLE_MAX_CHARS, UNTITLED, clean_title, title_from_question

log = logging.getLogger(__name__)

_SESSIONS, _EVENTS = SessionRow.__table__, EventRow.__table__
# Prebuilt Core statements for the hot path: an append is two statements and a commit, with no ORM work.
_RESERVE = (
    update(_SESSIONS)
    .where(_SESSIONS.c.id == bindparam("sid"))
    .values(last_seq=_SESSIONS.c.last_seq + bindparam("count"), updated_at=bindparam("now"))
    .returning(_SESSIONS.c.last_seq)
)
_RESERVE_TITLED = _RESERVE.values(title=func.coalesce(_SESSIONS.c.title, bindparam("new_title")))
_INSERT_EVENTS = insert(_EVENTS)


class SessionNotFound(LookupError):
    """No session has this id."""


class SnapshotNotFound(LookupError):
    """No snapshot has this id."""


def new_id(prefix: str) -> str:
    """A fresh random id such as ``ses_3f2a9c0d1b7e4a55``."""
    return f"{prefix}_{uuid.uuid4().hex[:16]}"


class SessionStore:
    """Sessions, their append-only event logs and snapshots; every method is its own transaction."""

    def __init__(self, engine: Engine, *, secrets: Iterable[str | None] = ()) -> None:
        self.engine = engine
        self._writer = writer(engine)
        self._redact = Redactor(secrets)

    @classmethod
    def open(cls, url: str | None = None, *, secrets: Iterable[str | None] = ()) -> SessionStore:
        """A store on ``url`` (default: ``$DATABASE_URL`` or ``$SPARROW_DATA_DIR/sparrow.db``).

        ``secrets`` are values (API keys...) to redact should they ever appear in an event.
        """
        return cls(create_db_engine(url), secrets=secrets)

    def close(self) -> None:
        """Release the engine's connections."""
        self.engine.dispose()

    def _write(self) -> Session:
        """A unit of work that takes the write lock as it begins; rows stay readable after commit."""
        return Session(self._writer, expire_on_commit=False)

    # ── sessions ────────────────────────────────────────────────────────────────────────────────

    def create_session(self, config: SessionConfig | None = None, *, title: str | None = None) -> SessionInfo:
        """A new, empty session; without a title it takes one from its first question."""
        now = time.time()
        row = SessionRow(
            id=new_id("ses"),
            title=self._redact(clean_title(title)) if title else None,
            created_at=now,
            updated_at=now,
            config=(config or SessionConfig()).model_dump(),
        )
        with self._write() as db:
            db.add(row)
            db.commit()
            info = _session_info(row)
        log.info("created session %s", info.id)
        return info

    def list_sessions(self, *, limit: int | None = None) -> list[SessionInfo]:
        """Sessions, most recently updated first."""
        query = select(SessionRow).order_by(col(SessionRow.updated_at).desc(), col(SessionRow.id)).limit(limit)
        with Session(self.engine) as db:
            return [info for row in db.exec(query) if (info := _listable(row)) is not None]

    def get_session(self, session_id: str) -> SessionInfo:
        """One session; raises SessionNotFound."""
        with Session(self.engine) as db:
            return _session_info(_session_row(db, session_id))

    def rename_session(self, session_id: str, title: str) -> SessionInfo:
        """Give a session a title of its own (the first question no longer decides it)."""
        statement = update(SessionRow).where(col(SessionRow.id) == session_id)
        self._update(statement.values(title=self._redact(clean_title(title)), updated_at=time.time()), session_id)
        return self.get_session(session_id)

    def update_config(self, session_id: str, config: SessionConfig) -> None:
        """Record the configuration the session's next runs use (model, endpoint, protocol, settings)."""
        statement = update(SessionRow).where(col(SessionRow.id) == session_id)
        self._update(statement.values(config=config.model_dump(), updated_at=time.time()), session_id)

    def delete_session(self, session_id: str) -> None:
        """Delete a session with its events and snapshots (sessions forked from it stay, unparented)."""
        self._update(delete(SessionRow).where(col(SessionRow.id) == session_id), session_id)
        log.info("deleted session %s", session_id)

    def _update(self, statement: Any, session_id: str) -> None:
        with self._write() as db:
            if db.exec(statement).rowcount == 0:
                raise SessionNotFound(f"no session {session_id!r}")
            db.commit()

    # ── events ──────────────────────────────────────────────────────────────────────────────────

    def append(self, session_id: str, events: Sequence[Event]) -> int:
        """Append events in one transaction, numbering them after the session's last; returns the last number."""
        if not events:
            return self.get_session(session_id).last_seq
        rows = [(e.run_id, e.type, e.ts, self._redact(encode(e))) for e in events]
        reserve: dict[str, Any] = {"sid": session_id, "count": len(rows), "now": time.time()}
        question = next((e.question for e in events if isinstance(e, RunStarted)), None)
        if question is not None:
            reserve["new_title"] = self._redact(title_from_question(question))
        with self._write() as db:
            last = db.exec(_RESERVE_TITLED if question is not None else _RESERVE, params=reserve).scalar()
            if last is None:
                raise SessionNotFound(f"no session {session_id!r}")
            first = last - len(rows) + 1
            params = [
                {"session_id": session_id, "seq": first + i, "run_id": r, "type": t, "ts": ts, "payload": p}
                for i, (r, t, ts, p) in enumerate(rows)
            ]
            db.exec(_INSERT_EVENTS, params=params)
            db.commit()
        return int(last)

    def events(self, session_id: str, *, upto_seq: int | None = None) -> list[Event]:
        """The session's events in order (up to ``upto_seq`` when given); raises SessionNotFound."""
        with Session(self.engine) as db:
            _session_row(db, session_id)
            rows = list(db.exec(_event_rows(select(EventRow.type, EventRow.payload), session_id, upto_seq)))
        with gc_paused():
            return [decode(kind, payload) for kind, payload in rows]

    def stored_events(self, session_id: str, *, upto_seq: int | None = None) -> list[StoredEvent]:
        """The session's event rows as stored (sequence number, run id, type, time, JSON payload)."""
        columns = select(EventRow.seq, EventRow.run_id, EventRow.type, EventRow.ts, EventRow.payload)
        with Session(self.engine) as db:
            _session_row(db, session_id)
            return [StoredEvent(*row) for row in db.exec(_event_rows(columns, session_id, upto_seq))]

    def interrupted_run(self, session_id: str) -> InterruptedRun | None:
        """The session's last run if it has no ``run_finished`` event (it can be resumed), else None."""
        last_boundary = (
            select(EventRow.seq, EventRow.run_id, EventRow.type, EventRow.payload)
            .where(col(EventRow.session_id) == session_id, col(EventRow.type).in_(("run_started", "run_finished")))
            .order_by(col(EventRow.seq).desc())
            .limit(1)
        )
        with Session(self.engine) as db:
            _session_row(db, session_id)
            started = db.exec(last_boundary).first()
            if started is None or started.type != "run_started":
                return None
            tail = select(func.max(EventRow.seq), func.max(EventRow.ts)).where(
                col(EventRow.session_id) == session_id,
                col(EventRow.seq) >= started.seq,
                col(EventRow.run_id) == started.run_id,
            )
            last_seq, last_ts = db.exec(tail).one()
        question = json.loads(started.payload).get("question", "")
        return InterruptedRun(started.run_id, str(question), started.seq, int(last_seq), float(last_ts))

    # ── snapshots ───────────────────────────────────────────────────────────────────────────────

    def save_snapshot(self, session_id: str, name: str | None = None) -> SnapshotInfo:
        """A named, immutable snapshot of the session as it is now (default name ``Snapshot N``)."""
        with self._write() as db:
            session = _session_row(db, session_id)
            taken = set(db.exec(select(SnapshotRow.name).where(col(SnapshotRow.session_id) == session_id)))
            name = clean_title(name) if name else _free_name(taken)
            if name in taken:
                raise ValueError(f"this session already has a snapshot named {name!r}")
            row = SnapshotRow(
                id=new_id("snap"),
                session_id=session_id,
                name=name,
                created_at=time.time(),
                upto_seq=session.last_seq,
                title=session.title,
                config=session.config,
            )
            db.add(row)
            db.commit()
            return _snapshot_info(row)

    def list_snapshots(self, session_id: str) -> list[SnapshotInfo]:
        """The session's snapshots, oldest first."""
        query = select(SnapshotRow).where(col(SnapshotRow.session_id) == session_id)
        with Session(self.engine) as db:
            _session_row(db, session_id)
            rows = db.exec(query.order_by(col(SnapshotRow.created_at), col(SnapshotRow.upto_seq)))
            return [_snapshot_info(row) for row in rows]

    def get_snapshot(self, snapshot_id: str) -> SnapshotInfo:
        """One snapshot; raises SnapshotNotFound."""
        with Session(self.engine) as db:
            return _snapshot_info(_snapshot_row(db, snapshot_id))

    def snapshot_events(self, snapshot_id: str) -> list[Event]:
        """The events a snapshot holds (for a preview before forking it)."""
        snapshot = self.get_snapshot(snapshot_id)
        return self.events(snapshot.session_id, upto_seq=snapshot.upto_seq)

    def delete_snapshot(self, snapshot_id: str) -> None:
        """Delete a snapshot (its session and the sessions forked from it stay)."""
        with self._write() as db:
            if db.exec(delete(SnapshotRow).where(col(SnapshotRow.id) == snapshot_id)).rowcount == 0:
                raise SnapshotNotFound(f"no snapshot {snapshot_id!r}")
            db.commit()

    def fork_snapshot(self, snapshot_id: str, *, title: str | None = None) -> SessionInfo:
        """A new session holding a copy of the snapshot's events; the original session is not touched."""
        with self._write() as db:
            snapshot = _snapshot_row(db, snapshot_id)
            now = time.time()
            row = SessionRow(
                id=new_id("ses"),
                title=clean_title(title) if title else _fork_title(snapshot),
                created_at=now,
                updated_at=now,
                last_seq=snapshot.upto_seq,
                config=snapshot.config,
                parent_id=snapshot.session_id,
                forked_from=snapshot.id,
            )
            db.add(row)
            db.flush()
            db.exec(_copy_events(snapshot.session_id, row.id, snapshot.upto_seq))
            db.commit()
            info = _session_info(row)
        log.info("forked snapshot %s into session %s", snapshot_id, info.id)
        return info

    # ── whole sessions (the snapshot file) ──────────────────────────────────────────────────────

    def dump_session(self, session_id: str) -> SessionDump:
        """Everything about a session, read in one transaction (for export)."""
        columns = select(EventRow.seq, EventRow.run_id, EventRow.type, EventRow.ts, EventRow.payload)
        snapshots_query = select(SnapshotRow).where(col(SnapshotRow.session_id) == session_id)
        with Session(self.engine) as db:
            row = _session_row(db, session_id)
            events = [StoredEvent(*r) for r in db.exec(_event_rows(columns, session_id))]
            snapshots = sorted(
                (_snapshot_info(s) for s in db.exec(snapshots_query)), key=lambda s: (s.created_at, s.upto_seq, s.id)
            )
            return SessionDump(
                id=row.id,
                title=row.title,
                created_at=row.created_at,
                updated_at=row.updated_at,
                config=SessionConfig.model_validate(row.config),
                events=events,
                snapshots=snapshots,
                parent_id=row.parent_id,
                forked_from=row.forked_from,
            )

    def add_dump(self, dump: SessionDump) -> SessionInfo:
        """Write a whole session in one transaction (all or nothing); ids already in use are replaced."""
        with self._write() as db:
            session_id = dump.id if db.get(SessionRow, dump.id) is None else new_id("ses")
            parent = dump.parent_id if dump.parent_id and db.get(SessionRow, dump.parent_id) else None
            row = SessionRow(
                id=session_id,
                title=self._redact(dump.title) if dump.title else None,
                created_at=dump.created_at,
                updated_at=dump.updated_at,
                last_seq=max((e.seq for e in dump.events), default=0),
                config=dump.config.model_dump(),
                parent_id=parent,
                forked_from=dump.forked_from,
            )
            db.add(row)
            db.flush()
            if dump.events:
                db.exec(_INSERT_EVENTS, params=[self._event_params(session_id, e) for e in dump.events])
            db.add_all(self._snapshot_rows(db, session_id, dump.snapshots))
            db.commit()
            info = _session_info(row)
        log.info("imported session %s (%d events, %d snapshots)", info.id, len(dump.events), len(dump.snapshots))
        return info

    def _event_params(self, session_id: str, event: StoredEvent) -> dict[str, Any]:
        return {
            "session_id": session_id,
            "seq": event.seq,
            "run_id": event.run_id,
            "type": event.type,
            "ts": event.ts,
            "payload": self._redact(event.payload),
        }

    def _snapshot_rows(self, db: Session, session_id: str, snapshots: Sequence[SnapshotInfo]) -> list[SnapshotRow]:
        ids = [s.id for s in snapshots]
        taken = set(db.exec(select(SnapshotRow.id).where(col(SnapshotRow.id).in_(ids)))) if ids else set()
        return [
            SnapshotRow(
                id=new_id("snap") if s.id in taken else s.id,
                session_id=session_id,
                name=s.name,
                created_at=s.created_at,
                upto_seq=s.upto_seq,
                title=self._redact(s.title) if s.title else None,
                config=s.config.model_dump(),
            )
            for s in snapshots
        ]


def _session_row(db: Session, session_id: str) -> SessionRow:
    row = db.get(SessionRow, session_id)
    if row is None:
        raise SessionNotFound(f"no session {session_id!r}")
    return row


def _snapshot_row(db: Session, snapshot_id: str) -> SnapshotRow:
    row = db.get(SnapshotRow, snapshot_id)
    if row is None:
        raise SnapshotNotFound(f"no snapshot {snapshot_id!r}")
    return row


def _listable(row: SessionRow) -> SessionInfo | None:
    """The row as a SessionInfo, or None (logged) when it is damaged: one bad row never breaks a listing."""
    try:
        return _session_info(row)
    except (ValueError, TypeError) as exc:
        log.warning("session %s cannot be listed: %s", row.id, str(exc).splitlines()[0])
        return None


def _session_info(row: SessionRow) -> SessionInfo:
    return SessionInfo(
        id=row.id,
        title=row.title or UNTITLED,
        created_at=row.created_at,
        updated_at=row.updated_at,
        config=SessionConfig.model_validate(row.config),
        last_seq=row.last_seq,
        parent_id=row.parent_id,
        forked_from=row.forked_from,
    )


def _snapshot_info(row: SnapshotRow) -> SnapshotInfo:
    return SnapshotInfo(
        id=row.id,
        session_id=row.session_id,
        name=row.name,
        created_at=row.created_at,
        upto_seq=row.upto_seq,
        title=row.title,
        config=SessionConfig.model_validate(row.config),
    )


def _free_name(taken: set[str]) -> str:
    n = len(taken) + 1
    while f"Snapshot {n}" in taken:
        n += 1
    return f"Snapshot {n}"


def _fork_title(snapshot: SnapshotRow) -> str:
    return f"{snapshot.title or UNTITLED} ({snapshot.name})"[:TITLE_MAX_CHARS]


def _event_rows(query: Any, session_id: str, upto_seq: int | None = None) -> Any:
    """``query`` restricted to one session's events (up to ``upto_seq``), in order."""
    query = query.where(col(EventRow.session_id) == session_id)
    if upto_seq is not None:
        query = query.where(col(EventRow.seq) <= upto_seq)
    return query.order_by(col(EventRow.seq))


def _copy_events(source_id: str, target_id: str, upto_seq: int) -> Any:
    rows = select(literal(target_id), *[_EVENTS.c[name] for name in _COPIED]).where(
        _EVENTS.c.session_id == source_id, _EVENTS.c.seq <= upto_seq
    )
    return insert(_EVENTS).from_select(["session_id", *_COPIED], rows)


_COPIED = ("seq", "run_id", "type", "ts", "payload")
