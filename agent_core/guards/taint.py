"""Where a run's content came from: outside content (pages, search results, MCP output) steers no tool unasked.

Once a run has read content from outside, every call that sends data out (``web_search``, ``fetch_url`` to a
host the run has not read yet, ``get_weather``, an untrusted MCP tool) or persists it (``remember``) asks first,
with the reason: "step 2 read http://…; this call sends …". Only an explicit per-tool trust
(``AgentSettings.tool_approval[name] = False``) or the run's own ``require_approval=False`` skips the question.

The source of each tool result is recorded on its ``ToolFinished`` (``outside``), so the trace marks which steps
carry outside content and from where, and a resumed run rebuilds the same taint from its events.
"""

from __future__ import annotations

import contextvars
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from agent_core.events import Event, ToolFinished
from agent_core.tools.tool import Tool

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


@dataclass
class Taint:
    """The outside content one run has read: (step, source) pairs, in order, and the hosts it fetched."""

    reads: list[tuple[int, str]] = field(default_factory=list)
    hosts: set[str] = field(default_factory=set)

    @classmethod
    def from_events(cls, events: Iterable[Event]) -> Taint:
        """The taint recorded in a run's events (for a resumed run)."""
        taint = cls()
        for event in events:
            if isinstance(event, ToolFinished) and event.outside:
                taint.add(event.step, event.outside)
        return taint

    def add(self, step: int, source: str) -> None:
        """Note that ``step`` read content from ``source``."""
        self.reads.append((step, source))
        host = urlsplit(source).hostname if "://" in source else None
        if host:
            self.hosts.add(host)

    def summary(self) -> str | None:
        """What the run has read, for a memory's mark and an approval's reason (None when nothing)."""
        if not self.reads:
            return None
        first_step, first = self.reads[0]
        more = len(self.reads) - 1
        others = f" (and {more} more outside source{'s' * (more > 1)})" if more else ""
        return f"step {first_step} read {first}{others}"

    def reason(self, tool: Tool, arguments: Mapping[str, Any]) -> str | None:
        """Why a call to ``tool`` must ask in this run: it sends or stores data after outside content was read."""
        summary = self.summary()
        if summary is None:
            return None
        action = self._action(tool, arguments)
        return None if action is None else f"{summary}; this call {action}"

    def _action(self, tool: Tool, arguments: Mapping[str, Any]) -> str | None:
        if tool.name == "fetch_url":
            host = urlsplit(str(arguments.get("url", ""))).hostname
            if host and host in self.hosts:
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
