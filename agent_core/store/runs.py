"""A session's runs: the one in progress and the process that owns it, its heartbeat, and the interrupted one.

Every replica of the app (and the CLI) shares the database, so the database says which process owns a session's run
in progress (``run_owners``), one run at a time per session. The owner heartbeats every ``HEARTBEAT_S`` and, in the
same statement, reads whether anyone asked it to stop; one thread per process and database beats all of that
process's claims in one ``UPDATE ... RETURNING`` (a thread and a transaction per run per beat cost as many writes
as the runs' events). A run whose heartbeat is older than ``STALE_AFTER_S`` (or whose owner on this very host is
gone) is dead: only then may another process claim it, to resume it. Claims are compare-and-set statements, so of
two processes claiming at once exactly one wins; replicas compare heartbeats with their own clocks, so keep them in
sync (NTP) to well under ``STALE_AFTER_S``. ``store.runs`` (``Runs``) is the way in for everything above the store:
each call is checked against the actor like any other (seeing a run or its new events needs read access to the
session, claiming or stopping one write access), and it finds the interrupted run (started, never finished) that
can be resumed.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import groupby
from typing import Any

from sqlalchemy import Connection, Engine, bindparam, delete, func, insert, select, tuple_, update
from sqlalchemy.dialects import postgresql, sqlite

from agent_core.env_settings import env_settings
from agent_core.events import Event
from agent_core.guards.limits import CancelToken
from agent_core.store.access import StoreAccess
from agent_core.store.database import DatabaseUnavailable, with_retry, writer
from agent_core.store.log import decode
from agent_core.store.tables import EventRow, InterruptedRun, RunOwnerRow, SessionConfig, SessionRow, table_of

log = logging.getLogger(__name__)

HEARTBEAT_S = 0.5
"""How often an owner says it is alive (and looks for a cancel request)."""
STALE_AFTER_S = 10.0
"""A heartbeat older than this means the owner died: its run may be resumed elsewhere."""
_OWNERS, _EVENTS = table_of(RunOwnerRow), table_of(EventRow)
_INSERT_OWNER = insert(_OWNERS)
_INSERT_SESSION = insert(table_of(SessionRow))
_RELEASE = delete(_OWNERS).where(
    _OWNERS.c.session_id == bindparam("s"), _OWNERS.c.run_id == bindparam("r"), _OWNERS.c.owner == bindparam("o")
)
_BOUNDARIES = ("run_started", "run_finished")
Key = tuple[str, str, str]
"""(session id, run id, owner) of a claim."""


@dataclass(frozen=True)
class Runs:
    """A session's runs for the acting user: the interrupted one, ownership of the one in progress, its new events."""

    access: StoreAccess

    def interrupted(self, session_id: str) -> InterruptedRun | None:
        """The session's last run if it has no ``run_finished`` event (it can be resumed), else None."""
        last_boundary = (
            select(_EVENTS.c.seq, _EVENTS.c.run_id, _EVENTS.c.type, _EVENTS.c.payload)
            .where(_EVENTS.c.session_id == session_id, _EVENTS.c.type.in_(_BOUNDARIES))
            .order_by(_EVENTS.c.seq.desc())
            .limit(1)
        )
        with self.access.read() as db:
            self.access.session(db, session_id)
            conn = db.connection()
            started = conn.execute(last_boundary).first()
            if started is None or started.type != "run_started":
                return None
            tail = select(func.max(_EVENTS.c.seq), func.max(_EVENTS.c.ts)).where(
                _EVENTS.c.session_id == session_id, _EVENTS.c.seq >= started.seq, _EVENTS.c.run_id == started.run_id
            )
            last_seq, last_ts = conn.execute(tail).one()
        question = json.loads(started.payload).get("question", "")
        return InterruptedRun(started.run_id, str(question), started.seq, int(last_seq), float(last_ts))

    def live_owner(self, session_id: str) -> RunOwner | None:
        """The session's run in progress if its owner process is alive (None: no run, or a dead one)."""
        with self.access.read() as db:
            self.access.session(db, session_id)
        return RunOwners(self.access.engine).live(session_id)

    def claim(self, session_id: str, run_id: str) -> RunOwner:
        """Make this process the owner of ``run_id`` in the actor's session; SessionBusy if a live run holds it."""
        with self.access.read() as db:
            self.access.session(db, session_id, write=True)
        return RunOwners(self.access.engine).claim(session_id, run_id)

    def open(
        self,
        run_id: str,
        config: SessionConfig,
        *,
        title: str | None = None,
        also: Callable[[Connection, str], None] | None = None,
    ) -> RunOwner:
        """A new session of the actor's with ``config``, its run ``run_id`` claimed by this process (the claim names
        the session): one transaction where ``sessions.create``, ``runs.claim`` and ``sessions.update_config`` take
        three (a new session has no run to wait for). ``also(conn, session_id)`` adds rows that belong with it (an
        experiment's result row) to the same transaction."""
        self.access.actor.check_writable()
        values = self.access.new_session_values(config, title)
        with self.access.writer.begin() as conn:
            conn.execute(_INSERT_SESSION, values)
            claim = RunOwners(self.access.engine).claim_new(conn, values["id"], run_id)
            if also is not None:
                also(conn, values["id"])
        return claim

    def owned(self, claim: RunOwner, cancel: CancelToken, events: Iterator[Event]) -> Iterator[Event]:
        """``events`` while this process owns ``claim`` (one ``claim`` or ``open`` gave): heartbeating it, a cancel
        request honoured, the claim released at the end. Only for a session the actor may write to."""
        with self.access.read() as db:
            self.access.session(db, claim.session_id, write=True)
        return owned(RunOwners(self.access.engine), claim, cancel, events)

    def release(self, claim: RunOwner) -> None:
        """Give ``claim`` up without running it (what was to start with it failed); the actor's to write to."""
        with self.access.read() as db:
            self.access.session(db, claim.session_id, write=True)
        RunOwners(self.access.engine).release(claim)

    def request_cancel(self, session_id: str, run_id: str) -> bool:
        """Ask the run's owner, wherever it is, to stop it; False if that run is no longer in progress."""
        with self.access.read() as db:
            self.access.session(db, session_id, write=True)
        return RunOwners(self.access.engine).request_cancel(session_id, run_id)

    def events_after(self, session_id: str, after_seq: int) -> list[tuple[int, Event]]:
        """The session's events numbered after ``after_seq``, with their numbers (to follow a run owned elsewhere)."""
        with self.access.read() as db:
            self.access.session(db, session_id)
        query = (
            select(_EVENTS.c.seq, _EVENTS.c.type, _EVENTS.c.payload)
            .where(_EVENTS.c.session_id == session_id, _EVENTS.c.seq > after_seq)
            .order_by(_EVENTS.c.seq)
        )
        with self.access.engine.connect() as conn:
            found = [(seq, decode(kind, payload)) for seq, kind, payload in conn.execute(query)]
        upto = self.access.actor.shared_upto
        return found if upto is None else [(seq, event) for seq, event in found if seq <= upto]


class SessionBusy(RuntimeError):
    """The session already has a run in progress, owned by a live process."""


def replica_id() -> str:
    """This replica's name: ``$SPARROW_REPLICA_ID``, else the host name."""
    return env_settings().sparrow_replica_id or socket.gethostname()


def this_process() -> str:
    """The owner name of runs started here: ``replica:pid``."""
    return f"{replica_id()}:{os.getpid()}"


@dataclass(frozen=True)
class RunOwner:
    """A session's run in progress and the process that owns it."""

    session_id: str
    run_id: str
    owner: str
    """``replica:pid`` of the owning process."""
    heartbeat: float
    """Unix time of its last heartbeat."""
    cancel_requested: bool

    @property
    def local(self) -> bool:
        """True when this process owns the run."""
        return self.owner == this_process()

    def stale(self, now: float | None = None) -> bool:
        """True when the owner is dead: no heartbeat for ``STALE_AFTER_S``, or a process of this host that is gone."""
        if (now or time.time()) - self.heartbeat > STALE_AFTER_S:
            return True
        replica, _, pid = self.owner.rpartition(":")
        return replica == replica_id() and pid.isdigit() and not _alive(int(pid))

    def describe(self) -> str:
        """E.g. ``run_ab12 on web-1:4242, alive 0.3 s ago``."""
        return f"{self.run_id} on {self.owner}, alive {max(0.0, time.time() - self.heartbeat):.1f} s ago"


def _busy(session_id: str, what: str) -> str:
    return (
        f"session {session_id} already has a run in progress ({what}); one run at a time per session: "
        "wait for it to finish, or stop it"
    )


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: it exists
        return True
    return True


class RunOwners:
    """The ``run_owners`` table: claim, heartbeat, release and cancel runs."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._writer = writer(engine)

    def get(self, session_id: str) -> RunOwner | None:
        """The session's run in progress (maybe with a stale owner), or None."""
        with self.engine.connect() as conn:
            row = conn.execute(select(_OWNERS).where(_OWNERS.c.session_id == session_id)).first()
        return None if row is None else RunOwner(*row)

    def live(self, session_id: str) -> RunOwner | None:
        """The session's run in progress if its owner is alive."""
        owner = self.get(session_id)
        return owner if owner is not None and not owner.stale() else None

    def claim(self, session_id: str, run_id: str) -> RunOwner:
        """Make this process the owner of ``run_id`` in the session; raises SessionBusy if a live run holds it."""
        current = self.get(session_id)
        if current is not None and not current.stale():
            raise SessionBusy(_busy(session_id, current.describe()))
        now = time.time()
        values = {"run_id": run_id, "owner": this_process(), "heartbeat": now, "cancel_requested": False}
        with self._writer.begin() as conn:
            if current is None:
                statement = self._insert_new(conn.dialect.name, {"session_id": session_id, **values})
            else:  # compare-and-set: only if nobody took the dead run over meanwhile
                statement = (
                    update(_OWNERS)
                    .where(_OWNERS.c.session_id == session_id, _OWNERS.c.owner == current.owner)
                    .where(_OWNERS.c.heartbeat == current.heartbeat)
                    .values(**values)
                )
            claimed = conn.execute(statement.returning(_OWNERS.c.session_id)).first() is not None
        if not claimed:
            taken = self.get(session_id)
            raise SessionBusy(_busy(session_id, taken.describe() if taken else "claimed a moment ago"))
        return RunOwner(session_id, run_id, this_process(), now, False)

    def claim_new(self, conn: Connection, session_id: str, run_id: str) -> RunOwner:
        """Claim ``run_id`` in a session made in ``conn``'s transaction (nobody else can hold it yet)."""
        claim = RunOwner(session_id, run_id, this_process(), time.time(), False)
        values = {"session_id": session_id, "run_id": run_id, "owner": claim.owner, "heartbeat": claim.heartbeat}
        conn.execute(_INSERT_OWNER, {**values, "cancel_requested": False})
        return claim

    def _insert_new(self, dialect: str, values: dict[str, object]) -> Any:
        if dialect == "postgresql":
            return postgresql.insert(_OWNERS).values(**values).on_conflict_do_nothing()
        if dialect == "sqlite":
            return sqlite.insert(_OWNERS).values(**values).on_conflict_do_nothing()
        return insert(_OWNERS).values(**values)  # another database: a duplicate raises instead

    def release(self, claim: RunOwner) -> None:
        """The run ended (or its process stops running it): the session is free."""
        with self._writer.begin() as conn:
            conn.execute(_RELEASE, {"s": claim.session_id, "r": claim.run_id, "o": claim.owner})

    def request_cancel(self, session_id: str, run_id: str) -> bool:
        """Ask the run's owner, wherever it is, to stop it; False if that run is no longer in progress."""
        statement = update(_OWNERS).where(_OWNERS.c.session_id == session_id, _OWNERS.c.run_id == run_id)
        with self._writer.begin() as conn:
            return conn.execute(statement.values(cancel_requested=True)).rowcount == 1


def owned(owners: RunOwners, claim: RunOwner, cancel: CancelToken, events: Iterator[Event]) -> Iterator[Event]:
    """Yield ``events`` while heartbeating ``claim`` (a cancel request, or a takeover, cancels the run); release it
    at the end. The beating is shared: one thread per process and database beats every claim in one statement."""
    key, beats = (claim.session_id, claim.run_id, claim.owner), beater(owners.engine, lambda: HEARTBEAT_S, time.time)
    beats.add(key, cancel)
    try:
        yield from events
    finally:
        beats.remove(key)
        try:
            owners.release(claim)
        except Exception as exc:  # the run is over either way: release it once the database is back
            log.warning("could not release run %s: %s", claim.run_id, exc)
            threading.Thread(target=release_later, args=(owners, claim), name="release", daemon=True).start()


def release_later(owners: RunOwners, claim: RunOwner) -> None:
    """Release ``claim`` as soon as the database takes writes again (a run stopped by an outage is resumable then,
    not only once its claim has gone stale); gives up after ``STALE_AFTER_S``, when it frees itself anyway."""
    try:
        with_retry(lambda: owners.release(claim), f"the end of run {claim.run_id}", budget=STALE_AFTER_S)
    except DatabaseUnavailable as exc:
        log.warning("%s", exc)


def beat_all(engine: Engine, keys: list[Key], now: float) -> dict[Key, bool]:
    """Stamp ``now`` on every claim of ``keys`` still held; {key: cancel requested} for those (a lost one is absent)."""
    found: dict[Key, bool] = {}
    with writer(engine).begin() as conn:
        for owner, mine in groupby(sorted(keys, key=lambda k: k[2]), key=lambda k: k[2]):
            pairs = [(session_id, run_id) for session_id, run_id, _ in mine]
            statement = (
                update(_OWNERS)
                .where(_OWNERS.c.owner == owner, tuple_(_OWNERS.c.session_id, _OWNERS.c.run_id).in_(pairs))
                .values(heartbeat=now)
                .returning(_OWNERS.c.session_id, _OWNERS.c.run_id, _OWNERS.c.cancel_requested)
            )
            found.update({(s, r, owner): bool(c) for s, r, c in conn.execute(statement)})
    return found


class Beater:
    """The claims of one engine in this process, beaten together by one thread while there are any."""

    def __init__(self, engine: Engine, interval: Callable[[], float], clock: Callable[[], float]) -> None:
        self._engine = weakref.ref(engine)  # the registry is keyed by the engine: hold it weakly, or it never goes
        self._interval, self._clock = interval, clock
        self._claims: dict[Key, CancelToken] = {}
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def add(self, key: Key, cancel: CancelToken) -> None:
        """Keep ``key`` alive from the next beat on; a cancel request (or its loss to another process) cancels it."""
        with self._lock:
            self._claims[key] = cancel
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="heartbeats", daemon=True)
                self._thread.start()

    def remove(self, key: Key) -> None:
        """Stop beating ``key`` (its run ended; the caller then releases the claim)."""
        with self._lock:
            self._claims.pop(key, None)

    def _loop(self) -> None:
        while self._beat_once():
            pass

    def _beat_once(self) -> bool:
        """Sleep one interval, then beat every claim; False once none is left (the thread then ends)."""
        time.sleep(self._interval())
        engine = self._engine()
        with self._lock:
            claims = dict(self._claims)
            if not claims or engine is None:
                self._thread = None
                return False
        try:
            found = beat_all(engine, list(claims), self._clock())
        except Exception as exc:  # a database hiccup: try again at the next beat
            log.warning("heartbeat of %d runs failed: %s", len(claims), exc)
            return True
        self._cancel(claims, found)
        return True

    def _cancel(self, claims: dict[Key, CancelToken], found: dict[Key, bool]) -> None:
        """Cancel the runs asked to stop, and those taken over (their row is gone or another process's)."""
        for key, cancel in claims.items():
            requested = found.get(key)
            with self._lock:
                if key not in self._claims or cancel.cancelled or requested is False:
                    continue
            if requested is None:
                log.warning("run %s was taken over by another process; cancelling it here", key[1])
            cancel.cancel()


_BEATERS: weakref.WeakKeyDictionary[Engine, Beater] = weakref.WeakKeyDictionary()


_BEATERS_LOCK = threading.Lock()


def beater(engine: Engine, interval: Callable[[], float], clock: Callable[[], float]) -> Beater:
    """The process's beater for ``engine`` (made on first use)."""
    with _BEATERS_LOCK:
        found = _BEATERS.get(engine)
        if found is None:
            found = _BEATERS[engine] = Beater(engine, interval, clock)
        return found
