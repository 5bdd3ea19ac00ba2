"""Which tool calls wait for a person, and the mailbox where a person's decisions reach the waiting run.

A tool asks first when it is marked ``needs_approval``, unless ``AgentSettings.tool_approval`` says
otherwise for it. The app and the CLI start from ``app_defaults()`` (every tool in ``ASK_FIRST`` asks: the tools
that send data off the machine or store it), then apply the person's choices (the Tools page; ``--trust`` in the
CLI); ``require_approval=False`` (``--yes``) approves every call. A bare library ``Agent`` keeps each tool's own
``needs_approval``. ``Approvals`` is shared by the run that waits and whoever decides (the UI, the terminal).

Outside content (pages, search results, MCP output) steers no tool unasked: once a run has read some (its
``Taint``, in the run's state), every call that sends data out (``web_search``, ``fetch_url`` to a host the run
has not read yet, ``get_weather``, an untrusted MCP tool) or persists it (``remember``) asks first, with the
reason: "step 2 read http://…; this call sends …". Only an explicit per-tool trust (``tool_approval[name] =
False``) or the run's own ``require_approval=False`` skips the question. The source of each tool result is
recorded on its ``ToolFinished`` (``outside``, see ``source_of``), so the trace marks which steps carry outside
content and from where, and a resumed run folds the same taint from its events.
"""

from __future__ import annotations

import contextvars
import json
import threading
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

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


OUTSIDE_READ: contextvars.ContextVar[str | None] = contextvars.ContextVar("sparrow_outside_read", default=None)
"""Set while a tainted run's tool calls start: where its outside content came from (``remember`` marks the memory)."""

SENDS: dict[str, str] = {
    "web_search": "sends the query {query} to a search provider",
    "fetch_url": "requests {url}, a host this run has not read from",
    "get_weather": "sends the city {city} to a weather service",
    "remember": "stores {fact} in long-term memory, read back in later sessions",
}
"""Built-in tools that send data out or persist it, with what a call does (filled from its arguments)."""

OUTSIDE_MEMORY = "outside"
"""The origin of a memory saved by a run that had read outside content."""


def is_mcp(tool: Tool) -> bool:
    """True for a tool served by an MCP server (its output is outside content)."""
    return hasattr(tool, "remote_name") and hasattr(tool, "server")


def source_of(tool: Tool, arguments: Mapping[str, Any], details: Any) -> str | None:
    """Where the output of a successful call to ``tool`` came from, when from outside; None for local tools."""
    if tool.name == "fetch_url":
        url = details.get("final_url") if isinstance(details, dict) else None
        return str(url or arguments.get("url") or "a web page")
    if tool.name == "web_search":
        return f"search results for {_quote(arguments.get('query', ''))}"
    if tool.name == "get_weather":
        return "a weather service"
    if is_mcp(tool):
        return f"MCP server {getattr(tool, 'server', '?')} ({tool.name})"
    if tool.name == "recall" and isinstance(details, dict):
        outside = [m.get("id") for m in details.get("memories", []) if m.get("origin") == OUTSIDE_MEMORY]
        if outside:
            return "memories saved from outside content (" + ", ".join(f"#{i}" for i in outside) + ")"
    return None


def sends_out(tool: Tool, arguments: Mapping[str, Any], hosts: set[str]) -> str | None:
    """What a call to ``tool`` does with data that makes it ask once outside content was read (None: nothing).

    ``hosts``: the hosts the run has read from (fetching one of them again sends nothing new).
    """
    if tool.name == "fetch_url":
        host = urlsplit(str(arguments.get("url", ""))).hostname
        if host and host in hosts:
            return None
    if tool.name in SENDS:
        return SENDS[tool.name].format_map(_Quoted(arguments))
    if is_mcp(tool) and tool.needs_approval:
        return f"sends {_quote(dict(arguments))} to the untrusted MCP server {getattr(tool, 'server', '?')}"
    return None


class _Quoted(dict[str, str]):
    """Arguments for ``str.format_map``: each quoted and shortened, a missing one shown as ``?``."""

    def __init__(self, arguments: Mapping[str, Any]) -> None:
        super().__init__({k: _quote(v) for k, v in arguments.items()})

    def __missing__(self, key: str) -> str:
        return "?"


def _quote(value: Any, limit: int = 120) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"
