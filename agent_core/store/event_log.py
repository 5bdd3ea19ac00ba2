"""The append-only event log of each session: appending (two prebuilt statements and a commit) and reading."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from sqlalchemy import bindparam, literal
from sqlmodel import col, func, insert, select, update

from agent_core.events import Event, RunStarted
from agent_core.store.codec import decode, encode, gc_paused
from agent_core.store.models import EventRow, SessionRow
from agent_core.store.records import StoredEvent
from agent_core.store.titles import title_from_question
from agent_core.store.transactions import SessionNotFound, StoreBase, session_row

_SESSIONS, _EVENTS = SessionRow.__table__, EventRow.__table__
# Prebuilt Core statements for the hot path: an append is two statements and a commit, with no ORM work.
_RESERVE = (
    update(_SESSIONS)
    .where(_SESSIONS.c.id == bindparam("sid"))
    .values(last_seq=_SESSIONS.c.last_seq + bindparam("count"), updated_at=bindparam("now"))
    .returning(_SESSIONS.c.last_seq)
)
_RESERVE_TITLED = _RESERVE.values(title=func.coalesce(_SESSIONS.c.title, bindparam("new_title")))
INSERT_EVENTS = insert(_EVENTS)
STORED_COLUMNS = tuple(_EVENTS.c[name] for name in StoredEvent._fields)
"""The event columns a StoredEvent holds, in its order (everything but ``session_id``)."""


class EventLog(StoreBase):
    """Appending to and reading a session's event log."""

    def append(self, session_id: str, events: Sequence[Event]) -> int:
        """Append events in one transaction, numbering them after the session's last; returns the last number."""
        if not events:
            with self._read() as db:
                return session_row(db, session_id).last_seq
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
            db.exec(INSERT_EVENTS, params=params)
            db.commit()
        return int(last)

    def events(self, session_id: str, *, upto_seq: int | None = None) -> list[Event]:
        """The session's events in order (up to ``upto_seq`` when given); raises SessionNotFound."""
        with self._read() as db:
            session_row(db, session_id)
            rows = list(db.exec(event_rows(select(EventRow.type, EventRow.payload), session_id, upto_seq)))
        with gc_paused():
            return [decode(kind, payload) for kind, payload in rows]

    def stored_events(self, session_id: str, *, upto_seq: int | None = None) -> list[StoredEvent]:
        """The session's event rows as stored (sequence number, run id, type, time, JSON payload)."""
        with self._read() as db:
            session_row(db, session_id)
            return [StoredEvent(*row) for row in db.exec(event_rows(select(*STORED_COLUMNS), session_id, upto_seq))]


def event_rows(query: Any, session_id: str, upto_seq: int | None = None) -> Any:
    """``query`` restricted to one session's events (up to ``upto_seq``), in order."""
    query = query.where(col(EventRow.session_id) == session_id)
    if upto_seq is not None:
        query = query.where(col(EventRow.seq) <= upto_seq)
    return query.order_by(col(EventRow.seq))


def copy_events(source_id: str, target_id: str, upto_seq: int) -> Any:
    """An INSERT ... SELECT copying a session's events up to ``upto_seq`` into another session."""
    rows = select(literal(target_id), *STORED_COLUMNS).where(
        _EVENTS.c.session_id == source_id, _EVENTS.c.seq <= upto_seq
    )
    return insert(_EVENTS).from_select(["session_id", *StoredEvent._fields], rows)
