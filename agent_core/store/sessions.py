"""The store of sessions: ``SessionStore`` and its parts, each an attribute holding one kind of thing.

``SessionStore`` is explicit composition: one ``StoreAccess`` (engine, write lock, redactor, actor; ``access``)
shared by a part per kind of thing it holds, every method its own transaction: ``store.sessions`` (``Sessions``:
create, list, get, rename, update_config, delete, claim, adopt_owner), ``store.log`` (``log.EventLog``: append,
events, stored_events, run_starters), ``store.snapshots`` (``Snapshots``: named, immutable points of a session,
and forks, new sessions from a snapshot's events), ``store.dumps`` (``Dumps``: whole sessions in and out, what
session files are made of), ``store.runs`` (``runs.Runs``) and ``store.shares`` (``shares.ShareLinks``);
``store.acting_as(actor)`` is a new store over the same access for ``actor``. ``adopt_owner`` re-keys the data of
a bare subject (a CLI ``--user``, or a user signed in before issuers were recorded) to ``ISSUER#SUBJECT`` when
that user signs in. ``session_digests`` tells a list of sessions apart in one query (each one's questions and
last run status). ``record_events`` is the autosave: it writes a run's events to its session as they happen
(each committed before the consumer sees it, so a crash loses at most the event being written; a brief outage
waited out, a long one stopping the run, resumable) and passes them on unchanged. Streamed ``ModelDelta`` events
are not stored unless asked (``persist_deltas``): the step's ``ModelFinished`` holds their text whole.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from sqlalchemy import Engine, column, func, table
from sqlmodel import Session, col, delete, select, update

from agent_core.events import Event, ModelDelta, RunStarted
from agent_core.store.access import ISSUER_SEP, Actor, NotYours, SessionNotFound, SnapshotNotFound, StoreAccess, new_id
from agent_core.store.database import DatabaseUnavailable, create_db_engine, with_retry
from agent_core.store.log import INSERT_EVENTS, STORED_COLUMNS, EventLog, copy_events, event_rows
from agent_core.store.memory import owned_by, text_hash
from agent_core.store.runs import Runs
from agent_core.store.shares import ShareLinks
from agent_core.store.tables import (
    TITLE_MAX_CHARS,
    UNTITLED,
    EventRow,
    MemoryRow,
    SessionConfig,
    SessionDump,
    SessionInfo,
    SessionRecord,
    SessionRow,
    ShareLinkRow,
    SnapshotInfo,
    SnapshotRecord,
    SnapshotRow,
    StoredEvent,
    clean_title,
    fields_of,
)

log = logging.getLogger(__name__)

_DATASETS = table("datasets", column("id"), column("owner"), column("name"), column("version"))
_EXPERIMENTS = table("experiments", column("owner"))
"""The experiment tables, by name: the store does not import ``agent_core.experiments`` (it builds on the store)."""


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
        """Who the calls are made for (see ``access.Actor``)."""
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
        """Make what ``subject`` (a bare subject) owns the acting user's; the number of rows re-keyed.

        The acting user's own key must be ``ISSUER#subject`` (else PermissionError), and the app asks only for its
        ``[auth]`` provider's users. A memory's duplicate key holds its owner, so each adopted memory is hashed
        again; one the user already holds under the new key is not kept twice.
        """
        key = self.access.actor.owner
        if self.access.actor.read_only or key is None or not key.endswith(ISSUER_SEP + subject) or key == subject:
            raise PermissionError("only the signed-in user with this subject may adopt its data")
        changed = 0
        with self.access.write() as db:
            for owned in (SessionRow, SnapshotRow):
                changed += db.exec(update(owned).where(col(owned.owner) == subject).values(owner=key)).rowcount
            changed += adopt_memories(db, subject, key) + adopt_datasets(db, subject, key)
            changed += db.exec(update(_EXPERIMENTS).where(_EXPERIMENTS.c.owner == subject).values(owner=key)).rowcount
            statement = update(ShareLinkRow).where(col(ShareLinkRow.created_by) == subject).values(created_by=key)
            changed += db.exec(statement).rowcount
            db.commit()
        if changed:
            log.info("%d rows of subject %s re-keyed to %s", changed, subject, key)
        return changed

    def _update(self, statement: Any, session_id: str) -> None:
        with self.access.write() as db:
            self.access.session(db, session_id, write=True)
            if db.exec(statement).rowcount == 0:
                raise SessionNotFound(f"no session {session_id!r}")
            db.commit()


def adopt_memories(db: Session, old: str | None, new: str) -> int:
    """Give ``old``'s memories (None: those saved without sign-in) to ``new``, each with the duplicate key of its new
    owner; how many changed hands. A fact ``new`` already holds in the same scope is not kept twice: the old copy is
    deleted."""
    adopted = 0
    for row in db.exec(select(MemoryRow).where(owned_by(old))).all():
        key = text_hash(row.text, new)
        taken = select(MemoryRow.id).where(col(MemoryRow.scope) == row.scope, col(MemoryRow.text_hash) == key)
        if db.exec(taken).first() is not None:
            db.delete(row)
            continue
        row.owner, row.text_hash, adopted = new, key, adopted + 1
        db.add(row)
    db.flush()
    return adopted


def adopt_datasets(db: Session, old: str, new: str) -> int:
    """Give ``old``'s datasets to ``new``; a version ``new`` already has of the same name becomes the next one."""
    rows = db.exec(select(_DATASETS.c.id, _DATASETS.c.name, _DATASETS.c.version).where(_DATASETS.c.owner == old))
    adopted = 0
    for dataset_id, name, version in sorted(rows.all(), key=lambda r: (r[1], r[2])):
        latest = select(func.max(_DATASETS.c.version)).where(_DATASETS.c.owner == new, _DATASETS.c.name == name)
        taken = db.exec(latest).one()
        number = version if taken is None or taken < version else taken + 1
        db.exec(update(_DATASETS).where(_DATASETS.c.id == dataset_id).values(owner=new, version=number))
        adopted += 1
    return adopted


# ── snapshots and forks ───────────────────────────────────────────────────────────────────────────


@dataclass(frozen=True)
class Snapshots:
    """Saving, listing, previewing, deleting and forking snapshots."""

    access: StoreAccess
    log: EventLog
    """The log a snapshot's events are read from."""

    def save(self, session_id: str, name: str | None = None) -> SnapshotInfo:
        """A named, immutable snapshot of the session as it is now (default name ``Snapshot N``)."""
        self.access.actor.check_writable()
        with self.access.write() as db:
            session = self.access.session(db, session_id, write=True)
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
                owner=self.access.actor.owner,
            )
            db.add(row)
            db.commit()
            return SnapshotInfo.of(row)

    def list(self, session_id: str) -> list[SnapshotInfo]:
        """The session's snapshots, oldest first."""
        query = select(SnapshotRow).where(col(SnapshotRow.session_id) == session_id)
        with self.access.read() as db:
            self.access.session(db, session_id)
            rows = db.exec(query.order_by(col(SnapshotRow.created_at), col(SnapshotRow.upto_seq)))
            return [self.access.seen(SnapshotInfo.of(row)) for row in rows]

    def get(self, snapshot_id: str) -> SnapshotInfo:
        """One snapshot; raises SnapshotNotFound."""
        with self.access.read() as db:
            return self.access.seen(SnapshotInfo.of(self.access.snapshot(db, snapshot_id)))

    def events(self, snapshot_id: str) -> list[Event]:
        """The events a snapshot holds (for a preview before forking it)."""
        snapshot = self.get(snapshot_id)
        return self.log.events(snapshot.session_id, upto_seq=snapshot.upto_seq)

    def delete(self, snapshot_id: str) -> None:
        """Delete a snapshot (its session and the sessions forked from it stay)."""
        self.access.actor.check_writable()
        with self.access.write() as db:
            self.access.snapshot(db, snapshot_id, write=True)
            if db.exec(delete(SnapshotRow).where(col(SnapshotRow.id) == snapshot_id)).rowcount == 0:
                raise SnapshotNotFound(f"no snapshot {snapshot_id!r}")
            db.commit()

    def fork(self, snapshot_id: str, *, title: str | None = None) -> SessionInfo:
        """A new session of the actor's holding a copy of the snapshot's events; the original is not touched."""
        self.access.actor.check_writable()
        with self.access.write() as db:
            snapshot = self.access.snapshot(db, snapshot_id)
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
                owner=self.access.actor.owner,
            )
            db.add(row)
            db.flush()
            db.exec(copy_events(snapshot.session_id, row.id, snapshot.upto_seq))
            db.commit()
            info = SessionInfo.of(row)
        log.info("forked snapshot %s into session %s", snapshot_id, info.id)
        return info


def _free_name(taken: set[str]) -> str:
    n = len(taken) + 1
    while f"Snapshot {n}" in taken:
        n += 1
    return f"Snapshot {n}"


def _fork_title(snapshot: SnapshotRow) -> str:
    return f"{snapshot.title or UNTITLED} ({snapshot.name})"[:TITLE_MAX_CHARS]


# ── whole sessions in and out ─────────────────────────────────────────────────────────────────────


@dataclass(frozen=True)
class Dumps:
    """Reading and writing a whole session: metadata, events and snapshots."""

    access: StoreAccess

    def read(self, session_id: str) -> SessionDump:
        """Everything about a session, read in one transaction (for export; not through a share link)."""
        self.access.actor.check_writable()
        snapshots_query = select(SnapshotRow).where(col(SnapshotRow.session_id) == session_id)
        with self.access.read() as db:
            row = self.access.session(db, session_id)
            events = [StoredEvent(*r) for r in db.exec(event_rows(select(*STORED_COLUMNS), session_id))]
            snapshots = sorted(
                (SnapshotInfo.of(s) for s in db.exec(snapshots_query)), key=lambda s: (s.created_at, s.upto_seq, s.id)
            )
            return SessionDump.model_construct(**fields_of(row, SessionRecord), events=events, snapshots=snapshots)

    def add(self, dump: SessionDump, *, imported: bool = False) -> SessionInfo:
        """Write a whole session, the actor's, in one transaction (all or nothing); ids already in use are replaced.

        ``imported``: it comes from a session file, so the new session is marked an imported copy (``imported_at``).
        """
        self.access.actor.check_writable()
        with self.access.write() as db:
            session_id = dump.id if db.get(SessionRow, dump.id) is None else new_id("ses")
            parent = dump.parent_id if dump.parent_id and db.get(SessionRow, dump.parent_id) else None
            row = SessionRow(
                **fields_of(dump, SessionRecord)
                | {
                    "id": session_id,
                    "title": self.access.redact(dump.title) if dump.title else None,
                    "last_seq": max((e.seq for e in dump.events), default=0),
                    "parent_id": parent,
                    "owner": self.access.actor.owner,
                    "imported_at": time.time() if imported else None,
                }
            )
            db.add(row)
            db.flush()
            if dump.events:
                db.exec(INSERT_EVENTS, params=[self._event_params(session_id, e) for e in dump.events])
            db.add_all(self._snapshot_rows(db, session_id, dump.snapshots))
            db.commit()
            info = SessionInfo.of(row)
        log.info("imported session %s (%d events, %d snapshots)", info.id, len(dump.events), len(dump.snapshots))
        return info

    def _event_params(self, session_id: str, event: StoredEvent) -> dict[str, Any]:
        return {"session_id": session_id, **event._asdict(), "payload": self.access.redact(event.payload)}

    def _snapshot_rows(self, db: Session, session_id: str, snapshots: Sequence[SnapshotInfo]) -> list[SnapshotRow]:
        ids = [s.id for s in snapshots]
        taken = set(db.exec(select(SnapshotRow.id).where(col(SnapshotRow.id).in_(ids)))) if ids else set()
        return [
            SnapshotRow(
                **fields_of(s, SnapshotRecord)
                | {
                    "id": new_id("snap") if s.id in taken else s.id,
                    "session_id": session_id,
                    "title": self.access.redact(s.title) if s.title else None,
                    "owner": self.access.actor.owner,
                }
            )
            for s in snapshots
        ]


# ── a list of sessions told apart ─────────────────────────────────────────────────────────────────


_KINDS = ("run_started", "run_finished")


@dataclass
class SessionDigest:
    """A session's questions (oldest first) and the status of its last run (None: no run, or one in progress)."""

    questions: list[str] = field(default_factory=list)
    status: str | None = None


def session_digests(engine: Engine, session_ids: Sequence[str]) -> dict[str, SessionDigest]:
    """The digest of each of ``session_ids`` (every id gets one, empty for a session without runs)."""
    digests = {session_id: SessionDigest() for session_id in session_ids}
    if not digests:
        return digests
    query = (
        select(EventRow.session_id, EventRow.type, EventRow.payload)
        .where(col(EventRow.type).in_(_KINDS), col(EventRow.session_id).in_(list(digests)))
        .order_by(col(EventRow.session_id), col(EventRow.seq))
    )
    with Session(engine) as db:
        for session_id, kind, payload in db.exec(query):
            data = json.loads(payload)
            digest = digests[session_id]
            if kind == "run_started":
                digest.questions.append(str(data.get("question", "")))
                digest.status = None
            else:
                digest.status = data.get("status")
    return digests


# ── the recorder: a run's events saved as they happen ─────────────────────────────────────────────


WAITS_AFTER = frozenset({"step_started", "tool_started", "approval_requested", "run_finished"})
"""The events after which a run waits (for its model, a tool or a person) or ends: a grouped recorder writes then."""


def record_events(
    store: SessionStore,
    session_id: str,
    events: Iterable[Event],
    *,
    persist_deltas: bool = False,
    grouped: bool = False,
) -> Iterator[Event]:
    """Yield ``events`` unchanged, writing each to the session first (``ModelDelta`` only if asked).

    ``grouped``: the events a run emits one after another without waiting are written together, in one
    transaction, before the run next waits (``WAITS_AFTER``) or ends, so each is stored within microseconds of
    its last sibling and other tabs and replicas still see every step as it starts. The consumer may see an
    event before it is stored, and a crash loses the events since the run last waited: for runs that are
    started again from the beginning when interrupted (experiment items), at about half the write transactions.
    """
    source = iter(events)
    pending: list[Event] = []
    try:
        for event in source:
            if not isinstance(event, ModelDelta) or persist_deltas:
                pending.append(event)
            if pending and not isinstance(event, ModelDelta) and (not grouped or event.type in WAITS_AFTER):
                _write(store, session_id, pending, event)
                pending = []
            yield event
    finally:
        try:
            if pending and grouped:  # a grouped run that stopped early or failed keeps what it emitted
                _write(store, session_id, pending, pending[-1])
        finally:
            close = getattr(source, "close", None)
            if close is not None:
                close()


def _write(store: SessionStore, session_id: str, batch: list[Event], last: Event) -> None:
    """Append ``batch`` (ending with ``last``), waiting out a short outage; DatabaseUnavailable after a long one."""
    try:
        with_retry(lambda: store.log.append(session_id, batch), f"the {last.type} event of run {last.run_id}")
    except DatabaseUnavailable as exc:
        if isinstance(last, RunStarted):
            raise  # nothing of the run was recorded: there is nothing to resume
        raise DatabaseUnavailable(
            f"{exc}; run {last.run_id} is interrupted, and `sessions resume {session_id}` continues it once the "
            "database is back"
        ) from None
