"""The pool of an in-memory SQLite database: its one connection, lent to one thread at a time.

An in-memory database lives in a single connection, so ``sqlite://`` has to use SQLAlchemy's ``StaticPool``,
which hands that connection to every thread at once. Two threads' transactions then run on one connection: a
heartbeat's ``BEGIN`` fails inside a writer's ("cannot start a transaction within a transaction"), and the
rollback that ends it undoes the writer's events. This pool lends the connection to one thread at a time (a
thread may check it out again while it holds it); the others wait their turn in order, as they would for
SQLite's write lock.
"""

from __future__ import annotations

import threading
from collections import deque
from typing import Any, cast

from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlalchemy.pool import ConnectionPoolEntry, StaticPool


class OneConnectionPool(StaticPool):
    """``StaticPool`` whose connection one thread holds at a time; others wait up to ``timeout`` seconds
    (``create_engine(..., pool_timeout=...)``)."""

    def __init__(self, creator: Any, timeout: float = 15.0, **kwargs: Any) -> None:
        super().__init__(creator, **kwargs)
        self._timeout = timeout
        self._turn = threading.Condition()
        self._holder: int | None = None
        self._held = 0
        self._waiting: deque[int] = deque()  # first come, first served: a busy thread cannot keep it

    def recreate(self) -> OneConnectionPool:
        """A new pool like this one (SQLAlchemy's ``dispose`` and reconnects call it), with the same timeout."""
        pool = cast(OneConnectionPool, super().recreate())  # StaticPool builds ``self.__class__`` from its options
        pool._timeout = self._timeout
        return pool

    def _do_get(self) -> ConnectionPoolEntry:
        me = threading.get_ident()
        with self._turn:
            if self._holder != me:
                self._waiting.append(me)
                if not self._turn.wait_for(lambda: self._holder is None and self._waiting[0] == me, self._timeout):
                    self._waiting.remove(me)
                    self._turn.notify_all()
                    raise PoolTimeout(f"the in-memory database stayed in use by other threads for {self._timeout:g} s")
                self._waiting.popleft()
                self._holder = me
            self._held += 1
        try:
            return super()._do_get()
        except BaseException:
            self._give_back()
            raise

    def _do_return_conn(self, record: ConnectionPoolEntry) -> None:
        self._give_back()

    def _give_back(self) -> None:
        with self._turn:
            self._held -= 1
            if self._held <= 0:
                self._holder, self._held = None, 0
                self._turn.notify_all()
