"""Decisions on tool calls that need a person's approval, shared by the waiting run and whoever decides."""

from __future__ import annotations

import threading

from agent_core.guards.limits import CancelToken

_POLL_S = 0.1


def approval_key(run_id: str, step: int, call_id: str) -> str:
    """Identifies one call across runs and steps (call ids repeat between steps)."""
    return f"{run_id}:{step}:{call_id}"


class Approvals:
    """A thread-safe mailbox: the run ``wait``s for a key, the UI or the terminal ``decide``s it."""

    def __init__(self) -> None:
        self._decisions: dict[str, bool] = {}
        self._changed = threading.Condition()

    def decide(self, key: str, approved: bool) -> None:
        """Record a decision (the first one wins) and wake the waiting run."""
        with self._changed:
            self._decisions.setdefault(key, approved)
            self._changed.notify_all()

    def decision(self, key: str) -> bool | None:
        """The decision for ``key`` if one was made."""
        with self._changed:
            return self._decisions.get(key)

    def wait(self, key: str, cancel: CancelToken | None = None, timeout: float | None = None) -> bool | None:
        """Block until ``key`` is decided; None if cancelled or ``timeout`` passed first."""
        with self._changed:
            waited = 0.0
            while key not in self._decisions:
                if (cancel is not None and cancel.cancelled) or (timeout is not None and waited >= timeout):
                    return None
                self._changed.wait(_POLL_S)
                waited += _POLL_S
            return self._decisions[key]
