"""Runs in background threads, watched by any number of viewers; runs of other processes, followed.

A web page may be refreshed, closed or opened twice while an agent works. So the run does not live
in the page: it runs in a thread (its events written to the store as they happen by whoever built
the iterator), and viewers read its events from an append-only list, waking as new ones arrive.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Sequence

from agent_core.engine.approvals import Approvals
from agent_core.events import Event, RunFinished
from agent_core.guards.limits import CancelToken
from agent_core.store.database import DatabaseUnavailable
from agent_core.store.log import decode
from agent_core.store.runs import RunOwner
from agent_core.store.sessions import SessionStore


class LiveRun:
    """One run's event stream in a background thread; ``wait(since)`` returns the events after ``since``."""

    def __init__(
        self,
        key: str,
        events: Iterator[Event],
        cancel: CancelToken,
        *,
        run_id: str,
        base: Sequence[Event] = (),
        approvals: Approvals | None = None,
    ) -> None:
        self.key = key
        self.approvals = approvals or Approvals()
        """Where viewers post decisions on calls awaiting approval."""
        self.run_id = run_id
        self.base: tuple[Event, ...] = tuple(base)
        """Earlier events of the same run (when resuming), so viewers can show the whole run."""
        self.cancel_token = cancel
        self.events: list[Event] = []
        self.error: str | None = None
        """Set if the iterator itself raised (the store failing, say); the run is then over."""
        self.started = time.time()
        self._source = events
        self._changed = threading.Condition()
        self._done = False
        self._thread = threading.Thread(target=self._pump, name=f"run-{key}", daemon=True)

    def start(self) -> LiveRun:
        """Start consuming the run in its thread."""
        self._thread.start()
        return self

    @property
    def done(self) -> bool:
        """True once the run's iterator is exhausted (or failed)."""
        return self._done

    def cancel(self) -> None:
        """Ask the run to stop; it ends with status ``cancelled`` shortly after."""
        self.cancel_token.cancel()

    def wait(self, since: int, timeout: float) -> list[Event]:
        """Events after index ``since``, waiting up to ``timeout`` seconds for at least one."""
        with self._changed:
            if len(self.events) <= since and not self._done:
                self._changed.wait(timeout)
            return self.events[since:]

    def join(self, timeout: float | None = None) -> bool:
        """Wait for the run to end; returns ``done``."""
        self._thread.join(timeout)
        return self._done

    def _pump(self) -> None:
        try:
            for event in self._source:
                with self._changed:
                    self.events.append(event)
                    self._changed.notify_all()
        except DatabaseUnavailable as exc:  # a long database outage: its own sentence says what and how to resume
            self.error = str(exc)
        except Exception as exc:  # the run's own errors are events; this is the plumbing failing
            self.error = f"{type(exc).__name__}: {exc}"
        finally:
            with self._changed:
                self._done = True
                self._changed.notify_all()


class _DecidedElsewhere(Approvals):
    """The approvals of a run owned by another process: asked and answered there, never by a follower."""

    def decision(self, key: str) -> bool | None:
        """Never undecided here, so a follower never offers to decide."""
        return False


class FollowedRun:
    """A run owned by another process (another replica, the CLI), followed through the event table.

    The same interface as ``LiveRun``: ``wait(since)`` returns the events after ``since``, polling the database
    at most every ``POLL_S``; ``cancel()`` asks the owner, through the database, to stop. The run is ``done``
    when its ``run_finished`` arrives, or when its owner is gone (it then shows as interrupted).
    """

    POLL_S = 0.25

    def __init__(self, store: SessionStore, session_id: str, owner: RunOwner) -> None:
        self.key = session_id
        self.run_id = owner.run_id
        self.owner = owner
        self.approvals: Approvals = _DecidedElsewhere()
        self.error: str | None = None
        self.started = time.time()
        self.events: list[Event] = []
        self._store = store
        stored = store.log.stored_events(session_id)
        self.base: tuple[Event, ...] = tuple(
            decode(s.type, s.payload) for s in stored if s.run_id == owner.run_id and s.type != "model_delta"
        )
        self._last_seq = stored[-1].seq if stored else 0
        self._done = any(isinstance(e, RunFinished) for e in self.base)
        self._polled = 0.0

    @property
    def done(self) -> bool:
        """True once the run finished, or its owner stopped heartbeating."""
        return self._done

    def cancel(self) -> None:
        """Ask the owning process to stop the run (it ends with status ``cancelled`` within about a second)."""
        self._store.runs.request_cancel(self.key, self.run_id)

    def wait(self, since: int, timeout: float) -> list[Event]:
        """Events after index ``since``, polling the event table for up to ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            if time.monotonic() - self._polled >= self.POLL_S:
                self._poll()
            left = deadline - time.monotonic()
            if len(self.events) > since or self._done or left <= 0:
                return self.events[since:]
            time.sleep(min(left, self.POLL_S))

    def _poll(self) -> None:
        self._polled = time.monotonic()
        for seq, event in self._store.runs.events_after(self.key, self._last_seq):
            self._last_seq = seq
            if event.run_id == self.run_id:
                self.events.append(event)
                self._done = self._done or isinstance(event, RunFinished)
        if not self._done and self._store.runs.live_owner(self.key) is None:
            self._done = True  # the owner released it or died: nothing more will come


ActiveRun = LiveRun | FollowedRun
"""A run in progress as a viewer sees it: started in this process, or followed from another one."""


class LiveRuns:
    """The runs in progress, one per key (a session id); finished ones are forgotten after a while."""

    def __init__(self, keep_finished_s: float = 600.0) -> None:
        self._runs: dict[str, LiveRun] = {}
        self._lock = threading.Lock()
        self.keep_finished_s = keep_finished_s

    def start(
        self,
        key: str,
        make: Callable[[CancelToken], Iterator[Event]],
        *,
        run_id: str,
        base: Sequence[Event] = (),
        approvals: Approvals | None = None,
    ) -> LiveRun:
        """Start ``make(cancel)`` for ``key``; refuses while another run of the same key is active."""
        with self._lock:
            self._prune()
            current = self._runs.get(key)
            if current is not None and not current.done:
                raise RuntimeError("a run is already in progress in this session")
            cancel = CancelToken()
            run = LiveRun(key, make(cancel), cancel, run_id=run_id, base=base, approvals=approvals)
            self._runs[key] = run
        return run.start()

    def get(self, key: str) -> LiveRun | None:
        """The current or last run of ``key``."""
        with self._lock:
            return self._runs.get(key)

    def active(self, key: str) -> LiveRun | None:
        """The run of ``key`` if it is still in progress."""
        run = self.get(key)
        return run if run is not None and not run.done else None

    def forget(self, key: str) -> None:
        """Drop a finished run (its events are in the store)."""
        with self._lock:
            run = self._runs.get(key)
            if run is not None and run.done:
                del self._runs[key]

    def _prune(self) -> None:
        now = time.time()
        for key, run in list(self._runs.items()):
            if run.done and now - run.started > self.keep_finished_s:
                del self._runs[key]
