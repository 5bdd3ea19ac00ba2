"""One heartbeat per process and database: every run this process owns is kept alive by a single statement.

A thread per run, each writing its own row every beat, cost a thread start per run and one write transaction
per run per beat (100 runs at once: 200 transactions a second, as many as their events). Here one thread per
engine beats all the claims registered with it in one ``UPDATE ... RETURNING`` every ``interval`` seconds, and
reads their cancel requests in the same statement; it ends when no claim is left and starts again with the next.
"""

from __future__ import annotations

import logging
import threading
import time
import weakref
from collections.abc import Callable
from itertools import groupby

from sqlalchemy import Engine, tuple_, update

from agent_core.guards.limits import CancelToken
from agent_core.store.database import writer
from agent_core.store.tables import RunOwnerRow, table_of

log = logging.getLogger(__name__)
_OWNERS = table_of(RunOwnerRow)
Key = tuple[str, str, str]
"""(session id, run id, owner) of a claim."""


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
