"""The append-only event log of each session (``store.log``), and the codec between events and stored JSON text.

An append is the store's hot path: two prebuilt Core statements (reserve the sequence numbers on the session row,
insert the rows) and a commit, with no ORM work; a run's first ``run_started`` also records who started it. An
event is stored as the JSON of ``event.to_dict()``, written by letting the C encoder walk the event itself (about
twice as fast as building the dict first); reading validates every row, so a damaged one is named, never half-read.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import json
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from pydantic import TypeAdapter
from sqlalchemy import Connection, bindparam, literal
from sqlmodel import col, func, insert, select, update

from agent_core.events import EVENT_TYPES, Event, EventFormatError, RunStarted, event_from_dict
from agent_core.guards import json_limits
from agent_core.store.access import HIDDEN_IDENTITY, NotYours, StoreAccess
from agent_core.store.tables import EventRow, RunRow, SessionRow, StoredEvent, table_of, title_from_question

_SESSIONS, _EVENTS, _RUNS = table_of(SessionRow), table_of(EventRow), table_of(RunRow)
# Prebuilt Core statements for the hot path: an append is two statements and a commit, with no ORM work.
_RESERVE = (
    update(_SESSIONS)
    .where(_SESSIONS.c.id == bindparam("sid"))
    .values(last_seq=_SESSIONS.c.last_seq + bindparam("count"), updated_at=bindparam("now"))
    .returning(_SESSIONS.c.last_seq)
)
_RESERVE_TITLED = _RESERVE.values(title=func.coalesce(_SESSIONS.c.title, bindparam("new_title")))
_OWNED = _SESSIONS.c.owner == bindparam("actor")
"""Added to the reserve statement for an actor who is not an admin: only their own sessions take events."""
INSERT_EVENTS = insert(_EVENTS)
_RUN_KNOWN = select(_RUNS.c.run_id).where(_RUNS.c.session_id == bindparam("sid"), _RUNS.c.run_id == bindparam("rid"))
_INSERT_RUN = insert(_RUNS)
STORED_COLUMNS = tuple(_EVENTS.c[name] for name in StoredEvent._fields)
"""The event columns a StoredEvent holds, in its order (everything but ``session_id``)."""


@dataclass(frozen=True)
class EventLog:
    """Appending to and reading a session's event log."""

    access: StoreAccess

    def append(self, session_id: str, events: Sequence[Event]) -> int:
        """Append events in one transaction, numbering them after the session's last; returns the last number.

        Only the session's owner (or an admin) may append; each run's first ``run_started`` records its starter.
        """
        self.access.actor.check_writable()
        if not events:
            with self.access.read() as db:
                return self.access.session(db, session_id, write=True).last_seq
        rows = [(e.run_id, e.type, e.ts, self.access.redact(encode(e))) for e in events]
        ts = time.time()
        reserve: dict[str, Any] = {"sid": session_id, "count": len(rows), "now": ts}
        started = next((e for e in events if isinstance(e, RunStarted)), None)
        statement = _RESERVE if started is None else _RESERVE_TITLED
        if started is not None:
            reserve["new_title"] = self.access.redact(title_from_question(started.question))
        if not self.access.actor.is_admin:
            statement, reserve["actor"] = statement.where(_OWNED), self.access.actor.owner
        with self.access.writer.begin() as conn:  # Core, not an ORM session: an append is the store's hot path
            last = conn.execute(statement, reserve).scalar()
            if last is None:
                raise NotYours(f"no session {session_id!r}")
            if started is not None:
                self._add_run(conn, session_id, started)
            first = last - len(rows) + 1
            params = [
                {"session_id": session_id, "seq": first + i, "run_id": r, "type": t, "ts": ts, "payload": p}
                for i, (r, t, ts, p) in enumerate(rows)
            ]
            conn.execute(INSERT_EVENTS, params)
        return int(last)

    def _add_run(self, conn: Connection, session_id: str, started: RunStarted) -> None:
        """Record who started the run, at its first ``run_started`` (a resume repeats none; a copy may)."""
        if conn.execute(_RUN_KNOWN, {"sid": session_id, "rid": started.run_id}).first() is None:
            values = {"session_id": session_id, "run_id": started.run_id, "started_by": self.access.actor.label}
            conn.execute(_INSERT_RUN, {**values, "started_at": started.ts})

    def events(self, session_id: str, *, upto_seq: int | None = None) -> list[Event]:
        """The session's events in order (up to ``upto_seq`` when given); raises SessionNotFound."""
        upto_seq = self._visible_upto(upto_seq)
        with self.access.read() as db:
            self.access.session(db, session_id)
            rows = list(db.exec(event_rows(select(EventRow.type, EventRow.payload), session_id, upto_seq)))
        with gc_paused():
            return [decode(kind, payload) for kind, payload in rows]

    def stored_events(self, session_id: str, *, upto_seq: int | None = None) -> list[StoredEvent]:
        """The session's event rows as stored (sequence number, run id, type, time, JSON payload)."""
        upto_seq = self._visible_upto(upto_seq)
        with self.access.read() as db:
            self.access.session(db, session_id)
            return [StoredEvent(*row) for row in db.exec(event_rows(select(*STORED_COLUMNS), session_id, upto_seq))]

    def run_starters(self, session_id: str) -> dict[str, str]:
        """Who started each run of the session (run id -> email, subject or ``local``), oldest run first.

        A share-link viewer is told ``HIDDEN_IDENTITY`` for each: a link names nobody.
        """
        query = select(RunRow.run_id, RunRow.started_by).where(col(RunRow.session_id) == session_id)
        query = query.order_by(col(RunRow.started_at), col(RunRow.run_id))
        with self.access.read() as db:
            self.access.session(db, session_id)
            hidden = self.access.actor.read_only
            return {run_id: HIDDEN_IDENTITY if hidden else who for run_id, who in db.exec(query)}

    def _visible_upto(self, upto_seq: int | None) -> int | None:
        """``upto_seq`` cut at the point a snapshot's share link shows."""
        limit = self.access.actor.shared_upto
        return upto_seq if limit is None else min(limit, upto_seq if upto_seq is not None else limit)


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


# ── the codec ──────────────────────────────────────────────────────────────────────────────────


def encode(event: Event) -> str:
    """Compact JSON text of ``event.to_dict()``, UTF-8 characters kept as they are."""
    try:
        return _ENCODER.encode(event)
    except TypeError:  # dict keys json cannot take as they are (e.g. tuples): to_dict() turns them into str
        return _PLAIN_ENCODER.encode(event.to_dict())


def _fields_of(value: Any) -> dict[str, Any]:
    """``json.dumps`` hook: an event becomes ``{"type", *fields}``, any other dataclass its fields, in order."""
    if not dataclasses.is_dataclass(value) or isinstance(value, type):
        raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")
    # A dataclass's __init__ sets every field in declaration order, so its __dict__ is to_dict() one level deep.
    fields = getattr(value, "__dict__", None)
    if fields is None:
        fields = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    return {"type": value.type, **fields} if isinstance(value, Event) else fields  # the tag is a class attribute


def decode(kind: str, payload: str | bytes) -> Event:
    """The event of type ``kind`` stored as ``payload``; raises EventFormatError naming the field if the row is damaged.

    pydantic-core parses and validates the JSON in one pass (faster than ``json.loads`` alone); any
    problem is reported by ``event_from_dict``, which names the field.
    """
    cls = EVENT_TYPES.get(kind)
    if cls is not None:
        try:
            return _validator(cls).validate_json(payload)
        except ValueError:  # pydantic.ValidationError
            pass
    try:
        data = json_limits.loads(payload)
    except ValueError as exc:
        raise EventFormatError(f"stored event is not valid JSON: {exc}") from None
    return event_from_dict(data)


@cache
def _validator(cls: type[Event]) -> TypeAdapter[Event]:
    return TypeAdapter(cls)


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while many events are decoded (decoded JSON holds no cycles).

    Each collection would walk every live object, again and again while thousands are created; this makes
    loading a large session about a third faster. The collector is switched back on only if it was on.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), default=_fields_of)
"""Made once: ``json.dumps`` with options builds a new encoder on every call."""
_PLAIN_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
