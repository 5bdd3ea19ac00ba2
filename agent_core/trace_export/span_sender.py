"""A background thread that turns events into spans and sends them in batches: a run never waits for it.

The run's thread only queues each event (with the function that folds it into spans). This thread folds
them, encodes and sends: once a second (``delay``), as soon as a batch is full, and when asked
(:meth:`SpanSender.flush_soon`, at the end of each run). A failed request drops its batch: the first
failure is logged as one warning, later ones only at debug level, and for ``RETRY_AFTER_S`` seconds after
a failure spans are neither built nor sent. Nothing here ever raises into the run.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence

from agent_core.events import Event
from agent_core.trace_export.otel import SpanData

log = logging.getLogger("agent_core.trace_export.live")

MAX_QUEUE = 20_000
"""Events waiting beyond this are dropped (a receiver far slower than the agent)."""
MAX_BATCH = 512
"""Spans per request at most."""
RETRY_AFTER_S = 30.0
"""After a failed request, spans are dropped unbuilt and unsent for this long."""

Send = Callable[[Sequence[SpanData]], None]
"""Sends one batch; raises on failure."""
Fold = Callable[[Event, bool], list[SpanData]]
"""Folds one event in and returns the spans it completes (the flag False: keep count, build nothing)."""


class SpanSender:
    """Queues events from any thread; folds, batches and sends from its own."""

    def __init__(self, send: Send, *, delay: float) -> None:
        self._send = send
        self._delay = delay
        self._queue: deque[tuple[Fold, Event]] = deque()
        self._wake = threading.Condition()
        self._urgent = self._closing = False
        self._added = self._done = 0
        self.sent = self.dropped = 0
        """Spans sent, and events or spans dropped."""
        self.warned = False
        self._quiet_until = 0.0
        self._thread = threading.Thread(target=self._work, name="sparrow-otlp-export", daemon=True)
        self._thread.start()

    @property
    def failing(self) -> bool:
        """True while the last request failed (spans are then dropped unbuilt for a while)."""
        return time.monotonic() < self._quiet_until

    def add(self, fold: Fold, event: Event) -> None:
        """Queue an event; never blocks beyond a lock, drops it when the queue is full."""
        with self._wake:
            self._added += 1
            if len(self._queue) >= MAX_QUEUE:
                self._done += 1
                self.dropped += 1
                return
            self._queue.append((fold, event))

    def flush_soon(self) -> None:
        """Send what is queued now instead of at the next tick; returns at once."""
        with self._wake:
            self._urgent = True
            self._wake.notify_all()

    def flush(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds until every event queued so far is sent or dropped; True if so."""
        deadline = time.monotonic() + timeout
        with self._wake:
            target = self._added
            self._urgent = True
            self._wake.notify_all()
            while self._done < target:
                left = deadline - time.monotonic()
                if left <= 0 or not self._thread.is_alive():
                    return False
                self._wake.wait(left)
        return True

    def close(self, timeout: float) -> None:
        """Flush (waiting at most ``timeout`` seconds) and stop the thread."""
        self.flush(timeout)
        with self._wake:
            self._closing = True
            self._wake.notify_all()

    def _work(self) -> None:
        while True:
            with self._wake:
                self._wake.wait_for(self._ready, timeout=self._delay)
                items = list(self._queue)
                self._queue.clear()
                self._urgent = False
                if self._closing and not items:
                    return
            if items:
                self._deliver(items)

    def _ready(self) -> bool:
        return self._closing or (self._urgent and bool(self._queue))

    def _deliver(self, items: list[tuple[Fold, Event]]) -> None:
        spans = self._fold(items)
        for start in range(0, len(spans), MAX_BATCH):
            self._post(spans[start : start + MAX_BATCH])
        with self._wake:
            self._done += len(items)
            self._wake.notify_all()

    def _fold(self, items: list[tuple[Fold, Event]]) -> list[SpanData]:
        build = not self.failing
        spans: list[SpanData] = []
        for fold, event in items:
            try:
                spans += fold(event, build)
            except Exception as exc:  # a bug in building spans must never reach the run
                self._failed(RuntimeError(f"could not build spans ({type(exc).__name__}: {exc})"), quiet=False)
        return spans

    def _post(self, batch: list[SpanData]) -> None:
        if self.failing:
            self.dropped += len(batch)
            return
        try:
            self._send(batch)
            self.sent += len(batch)
        except Exception as exc:  # a collector problem must never reach the run
            self.dropped += len(batch)
            self._failed(exc)

    def _failed(self, exc: Exception, quiet: bool = True) -> None:
        if quiet:
            self._quiet_until = time.monotonic() + RETRY_AFTER_S
        if self.warned:
            log.debug("live trace export: %s", exc)
            return
        self.warned = True
        log.warning(
            "live trace export: %s; spans are dropped while it fails (tried again every %g s, without further "
            "warnings). Runs are not affected.",
            exc,
            RETRY_AFTER_S,
        )
