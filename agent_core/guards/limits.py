"""Run limits shared by the loop, the models and the tools: cancellation and the wall-clock limit."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable

from agent_core.events import RunStatus


class CancelToken:
    """Thread-safe cancel flag; whoever holds it may stop a run from another thread."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self._callbacks: list[Callable[[], None]] = []
        self._lock = threading.Lock()

    @property
    def cancelled(self) -> bool:
        """True once ``cancel()`` was called."""
        return self._event.is_set()

    def cancel(self) -> None:
        """Request cancellation and run the registered callbacks (e.g. closing a network stream)."""
        with self._lock:
            self._event.set()
            callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            with contextlib.suppress(Exception):  # a failing close must not break cancellation
                callback()

    def on_cancel(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Run ``callback`` on cancel (at once if already cancelled); returns an unregister function."""
        with self._lock:
            if not self._event.is_set():
                self._callbacks.append(callback)
                return lambda: self._remove(callback)
        callback()
        return lambda: None

    def _remove(self, callback: Callable[[], None]) -> None:
        with self._lock:
            if callback in self._callbacks:
                self._callbacks.remove(callback)

    def wait(self, timeout: float) -> bool:
        """Sleep up to ``timeout`` seconds, waking early on cancel; returns ``cancelled``."""
        return self._event.wait(timeout)


class Deadline:
    """A point in monotonic time after which a run must stop."""

    def __init__(self, seconds: float | None) -> None:
        self.seconds = seconds
        self._at = None if seconds is None else time.monotonic() + seconds

    def remaining(self) -> float | None:
        """Seconds left (never negative), or None when there is no limit."""
        return None if self._at is None else max(0.0, self._at - time.monotonic())

    @property
    def expired(self) -> bool:
        """True once the limit has passed."""
        return self._at is not None and time.monotonic() >= self._at

    def extend(self, seconds: float) -> None:
        """Push the limit back (time spent waiting for a person does not count)."""
        if self._at is not None:
            self._at += seconds

    def cap(self, timeout: float | None) -> float | None:
        """The smaller of ``timeout`` and the time left."""
        left = self.remaining()
        if left is None:
            return timeout
        return left if timeout is None else min(timeout, left)


class RunStopped(Exception):
    """Raised inside the loop to end a run with a given status."""

    def __init__(self, status: RunStatus, message: str) -> None:
        super().__init__(message)
        self.status: RunStatus = status
        self.message = message
