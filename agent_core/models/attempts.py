"""What the openai client retried inside one model call: the HTTP status of every attempt, per thread.

The client repeats 408/409/429/5xx replies and dropped connections with backoff on its own, so a call
that succeeded on its third try looks like any other. An httpx response hook notes every status in the
thread that made the request; the model reads the notes once the reply has come.
"""

from __future__ import annotations

import threading
from typing import Any

RETRIED_STATUSES = frozenset({408, 409, 429})
"""Statuses below 500 the client retries (every 5xx is retried too)."""


def retried_status(status: int) -> bool:
    """True for a status the openai client repeats the request after."""
    return status in RETRIED_STATUSES or status >= 500


class AttemptLog(threading.local):
    """The statuses of the current thread's HTTP responses since ``start()``."""

    def __init__(self) -> None:
        self.statuses: list[int] = []
        self.retries_taken = 0

    def start(self) -> None:
        """Forget earlier calls: a new model call begins in this thread."""
        self.statuses = []
        self.retries_taken = 0

    def hook(self, response: Any) -> None:
        """The httpx ``response`` event hook: note the status."""
        self.statuses.append(int(response.status_code))

    def retried_after(self) -> tuple[str, ...]:
        """Why the call was repeated: the failed attempts' codes (``"503"``), ``"connection"`` for no reply."""
        failed = [str(s) for s in self.statuses[:-1] if retried_status(s)]
        answered = len(self.statuses)  # attempts that got a response (the last one included)
        lost = max(0, self.retries_taken + 1 - answered)
        return tuple(failed) + ("connection",) * lost
