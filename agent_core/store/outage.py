"""Database faults while a run records: a short outage is waited out, a long one stops the run in one sentence.

A locked SQLite file (past its busy timeout) or a PostgreSQL server that is restarting fails a write with an
``OperationalError``. The recorder repeats the write with growing pauses (``SPARROW_DB_RETRY_S`` seconds in all,
30 by default); each attempt is one transaction that either wrote the whole batch or nothing, so the events stay
in order, none lost, none doubled. Past that budget, or at once for a database that refuses writes for good (read
only), the run stops with ``DatabaseUnavailable``: the run has no ``run_finished``, so it is interrupted and
``sessions resume`` continues it from its last complete step once the database is back.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any, TypeVar

from sqlalchemy.exc import DBAPIError, OperationalError

from agent_core.env_settings import env_settings

log = logging.getLogger(__name__)
T = TypeVar("T")

DEFAULT_RETRY_S = 30.0
"""How long a run waits, in all, for a database that fails its writes, unless ``SPARROW_DB_RETRY_S`` says."""
FIRST_PAUSE_S = 0.1
MAX_PAUSE_S = 2.0
_FOR_GOOD = ("readonly", "read-only", "read only", "disk is full", "no space left")
"""Words of an error that waiting does not cure."""


class DatabaseUnavailable(RuntimeError):
    """The database could not be written for long enough that the run stopped; the message says why, in one line."""


def retry_budget() -> float:
    """Seconds to keep retrying a failed write (``SPARROW_DB_RETRY_S``, default 30)."""
    return env_settings().sparrow_db_retry_s


def transient(exc: BaseException) -> bool:
    """True for a database failure that may pass: a lock, a dropped or refused connection, a restarting server."""
    if not isinstance(exc, (OperationalError, DBAPIError)):
        return False
    if isinstance(exc, DBAPIError) and not isinstance(exc, OperationalError) and not exc.connection_invalidated:
        return False
    return not any(word in problem(exc).lower() for word in _FOR_GOOD)


def problem(exc: BaseException) -> str:
    """The database's own words for what went wrong, on one line, without SQLAlchemy's wrapping."""
    original = getattr(exc, "orig", None) or exc
    first = (str(original).strip().splitlines() or [type(original).__name__])[0]
    return first[:200]


def with_retry(write: Callable[[], T], what: str, *, budget: float | None = None) -> T:
    """``write()``, repeated with backoff while the database fails transiently, at most ``budget`` seconds."""
    budget = retry_budget() if budget is None else budget
    started, pause = time.monotonic(), FIRST_PAUSE_S
    while True:
        try:
            return write()
        except (OperationalError, DBAPIError) as exc:
            waited = time.monotonic() - started
            if not transient(exc) or waited + pause > budget:
                raise unavailable(exc, what, waited) from None
            log.warning("database write failed (%s); retrying in %.1f s", problem(exc), pause)
            time.sleep(pause)
            pause = min(pause * 2, MAX_PAUSE_S)


def read_only_refusal(context: Any) -> DatabaseUnavailable | None:
    """A write refused because the database is read-only, as one sentence (an engine's ``handle_error`` hook).

    Every write of every store call fails the same way on such a database (a ``?mode=ro`` SQLite file, a read-only
    mount, a PostgreSQL standby or ``default_transaction_read_only``): the caller gets ``DatabaseUnavailable``
    naming it, never SQLAlchemy's wrapped ``OperationalError``. Nothing was written.
    """
    exc = context.sqlalchemy_exception or context.original_exception
    words = problem(exc)
    if not any(word in words.lower() for word in _FOR_GOOD[:3]):
        return None
    return DatabaseUnavailable(f"the database is read-only, so nothing can be recorded: {words}")


def unavailable(exc: BaseException, what: str, waited: float) -> DatabaseUnavailable:
    """The one-sentence error for a write that could not be made."""
    after = f" (retried for {waited:.0f} s)" if waited >= 1 else ""
    return DatabaseUnavailable(f"the database could not record {what}{after}: {problem(exc)}")
