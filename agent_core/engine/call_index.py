"""Earlier tool calls looked up by tool name and canonical arguments.

One lookup serves two questions: "has this run already made exactly this call?" (repeated actions) and
"did the original run record a result for this call?" (reuse in a fork). A call is identified by its tool
name and its arguments as canonical JSON (sorted keys, no insignificant white space), so ``{"a": 1, "b": 2}``
and ``{"b":2,"a":1}`` are the same call.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from agent_core.events import Event, ToolFinished, ToolStarted


def canonical_arguments(arguments: Any) -> str:
    """Arguments as canonical JSON: sorted keys, compact separators, non-ASCII kept as is."""
    return json.dumps(arguments, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)


def call_key(tool: str, arguments: Any) -> tuple[str, str]:
    """The identity of a call: its tool's name and its canonical arguments."""
    return tool, canonical_arguments(arguments)


@dataclass(frozen=True)
class RecordedCall:
    """A call as it was made and what it returned."""

    step: int
    """The step the call was made at."""
    call_id: str
    """The call's id within its step (matches its ToolStarted and ToolFinished events)."""
    tool: str
    arguments: dict[str, Any]
    finished: ToolFinished | None
    """What it returned; None while the call has not finished (or never did)."""


class CallIndex:
    """Calls by (tool, canonical arguments), earliest first; built from events and extended as a run goes.

    Each call's canonical key is worked out once, when it starts; what is kept per call is its record only.
    """

    def __init__(self, events: Iterable[Event] = ()) -> None:
        self._by_key: dict[tuple[str, str], list[RecordedCall]] = {}
        self._open: dict[tuple[int, str], tuple[tuple[str, str], int]] = {}
        """Started calls not finished yet: their key and their place in its list."""
        for event in events:
            self.add(event)

    def add(self, event: Event) -> None:
        """Take in one event; only tool_started and tool_finished matter."""
        if isinstance(event, ToolStarted):
            key = call_key(event.tool, event.arguments)
            calls = self._by_key.setdefault(key, [])
            self._open[(event.step, event.call_id)] = (key, len(calls))
            calls.append(RecordedCall(event.step, event.call_id, event.tool, dict(event.arguments), None))
        elif isinstance(event, ToolFinished):
            opened = self._open.pop((event.step, event.call_id), None)
            if opened is None:
                return
            key, at = opened
            call = self._by_key[key][at]
            self._by_key[key][at] = RecordedCall(call.step, call.call_id, call.tool, call.arguments, event)

    def find(self, tool: str, arguments: Any, *, finished_only: bool = True) -> RecordedCall | None:
        """The earliest recorded call with this tool and these arguments (one that finished, by default)."""
        for call in self._by_key.get(call_key(tool, arguments), ()):
            if call.finished is not None or not finished_only:
                return call
        return None

    def count(self, tool: str, arguments: Any) -> int:
        """How many times this exact call was made."""
        return len(self._by_key.get(call_key(tool, arguments), ()))
