"""A background thread that sends finished spans in batches, so that a run never waits for a collector.

Spans are sent once a second (``ExportTarget.delay``), as soon as a batch is full, and when asked
(:meth:`SpanSender.flush_soon`, at the end of each run). A failed request drops its batch: the first
failure is logged as one warning, later ones only at debug level, and while the receiver keeps failing,
batches are dropped without trying for ``RETRY_AFTER_S`` seconds. Nothing here ever raises into the run.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence

from agent_core.trace_export.otel import SpanData

log = logging.getLogger("agent_core.trace_export.live")

MAX_QUEUE = 4096
"""Spans waiting beyond this are dropped (a receiver far slower than the agent)."""
MAX_BATCH = 512
RETRY_AFTER_S = 30.0
"""After a failed request, batches are dropped unsent for this long."""

Send = Callable[[Sequence[SpanData]], None]
"""Sends one batch; raises on failure."""


class SpanSender:
    """Queues spans from any thread and sends them from its own."""

    def __init__(self, send: Send, *, delay: float) -> None:
        self._send = send
        self._delay = delay
        self._queue: deque[SpanData] = deque()
        self._wake = threading.Condition()
        self._urgent = False
        self._closing = False
        self._added = self._done = 0
        self.sent = self.dropped = 0
        self.warned = False
        self._quiet_until = 0.0
        self._thread = threading.Thread(target=self._work, name="sparrow-otlp-export", daemon=True)
        self._thread.start()

    @property
    def failing(self) -> bool:
        """True while the last request failed (batches are then dropped unsent for a while)."""
        return time.monotonic() < self._quiet_until

    def add(self, spans: Sequence[SpanData]) -> None:
        """Queue finished spans; never blocks (beyond a lock), drops what does not fit."""
        with self._wake:
            room = max(MAX_QUEUE - len(self._queue), 0)
            self._queue.extend(spans[:room])
            self._added += len(spans)
            self._done += len(spans) - min(room, len(spans))
            self.dropped += len(spans) - min(room, len(spans))
            if len(self._queue) >= MAX_BATCH:
                self._wake.notify_all()

    def flush_soon(self) -> None:
        """Send what is queued now instead of at the next tick; returns at once."""
        with self._wake:
            self._urgent = True
            self._wake.notify_all()

    def flush(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds until every span queued so far is sent or dropped; True if so."""
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
                batch = [self._queue.popleft() for _ in range(min(MAX_BATCH, len(self._queue)))]
                self._urgent = bool(self._queue) and self._urgent
                if self._closing and not batch:
                    return
            if batch:
                self._deliver(batch)

    def _ready(self) -> bool:
        return self._closing or len(self._queue) >= MAX_BATCH or (self._urgent and bool(self._queue))

    def _deliver(self, batch: list[SpanData]) -> None:
        ok = False
        if not self.failing:
            try:
                self._send(batch)
                ok = True
            except Exception as exc:  # a collector problem must never reach the run
                self._failed(exc)
        with self._wake:
            self._done += len(batch)
            if ok:
                self.sent += len(batch)
            else:
                self.dropped += len(batch)
            self._wake.notify_all()

    def _failed(self, exc: Exception) -> None:
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
