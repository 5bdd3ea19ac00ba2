"""Who runs what: one run at a time per session, owned by one process that heartbeats while it works.

Every replica of the app (and the CLI) shares the database, so the database says which process owns a
session's run in progress (``run_owners``). The owner writes a heartbeat every ``HEARTBEAT_S`` and, with the
same statement, reads whether anyone asked it to stop (one statement for all of a process's runs: ``heartbeats``).
A run whose heartbeat is older than ``STALE_AFTER_S`` (or whose owner on this very host is gone) is dead: only then
may another process claim it to resume it. Claims are compare-and-set statements, so of two processes claiming
at once exactly one wins.

Replicas compare heartbeats with their own clocks: keep them in sync (NTP) to well under ``STALE_AFTER_S``.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, Engine, bindparam, delete, insert, select, update
from sqlalchemy.dialects import postgresql, sqlite

from agent_core.env_settings import env_settings
from agent_core.events import Event
from agent_core.guards.limits import CancelToken
from agent_core.store.database import writer
from agent_core.store.event_codec import decode
from agent_core.store.heartbeats import beater
from agent_core.store.outage import DatabaseUnavailable, with_retry
from agent_core.store.tables import EventRow, RunOwnerRow, table_of

log = logging.getLogger(__name__)

HEARTBEAT_S = 0.5
"""How often an owner says it is alive (and looks for a cancel request)."""
STALE_AFTER_S = 10.0
"""A heartbeat older than this means the owner died: its run may be resumed elsewhere."""
_OWNERS = table_of(RunOwnerRow)
_INSERT_OWNER = insert(_OWNERS)
_RELEASE = delete(_OWNERS).where(
    _OWNERS.c.session_id == bindparam("s"), _OWNERS.c.run_id == bindparam("r"), _OWNERS.c.owner == bindparam("o")
)


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


def events_after(engine: Engine, session_id: str, after_seq: int) -> list[tuple[int, Event]]:
    """The session's events numbered after ``after_seq``, with their numbers (to follow a run owned elsewhere)."""
    events = table_of(EventRow)
    query = (
        select(events.c.seq, events.c.type, events.c.payload)
        .where(events.c.session_id == session_id, events.c.seq > after_seq)
        .order_by(events.c.seq)
    )
    with engine.connect() as conn:
        rows = conn.execute(query).all()
    return [(seq, decode(kind, payload)) for seq, kind, payload in rows]


class Heartbeat:
    """Keeps a claim alive and cancels the run when a cancel request (or a takeover) is seen.

    The beating is shared: one thread per process and database beats every claim in one statement (``heartbeats``).
    """

    def __init__(self, owners: RunOwners, claim: RunOwner, cancel: CancelToken) -> None:
        self._beater = beater(owners.engine, lambda: HEARTBEAT_S, time.time)
        self._key, self._cancel = (claim.session_id, claim.run_id, claim.owner), cancel

    def start(self) -> Heartbeat:
        """Start beating."""
        self._beater.add(self._key, self._cancel)
        return self

    def stop(self) -> None:
        """Stop beating (the caller then releases the claim)."""
        self._beater.remove(self._key)


def owned(owners: RunOwners, claim: RunOwner, cancel: CancelToken, events: Iterator[Event]) -> Iterator[Event]:
    """Yield ``events`` while heartbeating ``claim`` (honouring cancel requests); release it at the end."""
    heartbeat = Heartbeat(owners, claim, cancel).start()
    try:
        yield from events
    finally:
        heartbeat.stop()
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
