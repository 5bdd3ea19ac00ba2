"""Which tool calls wait for a person, and the mailbox where a person's decisions reach the waiting run.

A tool asks first when it is marked ``needs_approval``, unless ``AgentSettings.tool_approval`` says
otherwise for it. The app and the CLI start from ``app_defaults()`` (every tool in ``ASK_FIRST`` asks: the tools
that send data off the machine or store it), then apply the person's choices (the Tools page; ``--trust`` in the
CLI); ``require_approval=False`` (``--yes``) approves every call. A bare library ``Agent`` keeps each tool's own
``needs_approval``. ``Approvals`` is shared by the run that waits and whoever decides (the UI, the terminal).
"""

from __future__ import annotations

import threading
from collections.abc import Mapping

from agent_core.guards.limits import CancelToken
from agent_core.tools.tool import Tool

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


ASK_FIRST: dict[str, str] = {
    "web_search": "sends words the model chose to a search provider",
    "fetch_url": "requests a web address the model chose",
    "get_weather": "sends a place name to a weather service",
    "remember": "stores text in long-term memory, read back in later sessions",
}
"""Built-in tools that ask before each call unless trusted, with why."""


def app_defaults() -> dict[str, bool]:
    """The per-tool approval settings the app and the CLI start from: every ``ASK_FIRST`` tool asks."""
    return dict.fromkeys(ASK_FIRST, True)


def asks_first(tool: Tool, settings: Mapping[str, bool] | None = None) -> bool:
    """True when a call to ``tool`` waits for approval (a per-tool setting wins over the tool's own mark)."""
    if settings and tool.name in settings:
        return bool(settings[tool.name])
    return tool.needs_approval


def why_ask(tool: Tool) -> str | None:
    """Why the tool asks first by default (None when it does not)."""
    if tool.name in ASK_FIRST:
        return ASK_FIRST[tool.name]
    return "marked as needing approval" if tool.needs_approval else None
