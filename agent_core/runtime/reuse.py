"""Recorded tool results a fork reuses instead of calling the tool again.

A branch that calls a tool with the same name and canonical arguments as the original run did (at any
step) gets the original's observation back, in a ``ToolFinished`` whose ``reused_from`` names where it was
recorded. Tools with effects are never replayed: a tool that asks for approval (by its own mark or the
run's settings), an untrusted MCP tool (marked as needing approval) and the memory writer run, and ask,
as they normally would. Only results without an error are reused: a failure may have been passing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from agent_core.engine.approvals import asks_first
from agent_core.engine.call_index import CallIndex
from agent_core.events import Event, ToolFinished
from agent_core.tools.runner import CallRequest
from agent_core.tools.tool import Tool, ToolSet

NEVER_REUSED: frozenset[str] = frozenset({"remember"})
"""Tools whose calls always run, whatever their approval settings: they change what later runs see."""


def has_effects(tool: Tool, approval: Mapping[str, bool] | None = None) -> bool:
    """True when a call to ``tool`` may change something or needs a person: it is never replayed silently."""
    return tool.needs_approval or asks_first(tool, approval) or tool.name in NEVER_REUSED


class RecordedResults:
    """The finished tool calls of one original run, ready to be reused by a fork of it."""

    def __init__(self, events: Iterable[Event], *, session_id: str, run_id: str, skip: Iterable[str] = ()) -> None:
        self.session_id, self.run_id = session_id, run_id
        self.index = CallIndex(e for e in events if e.run_id == run_id)
        self.skip = frozenset(skip)
        """Tools whose recorded results are not reused (the per-tool opt-out)."""

    def reused(
        self, run_id: str, step: int, calls: Sequence[CallRequest], tools: ToolSet, approval: Mapping[str, bool]
    ) -> dict[str, ToolFinished]:
        """The ToolFinished of each call in ``calls`` that can be reused, by call id (for run ``run_id``)."""
        out: dict[str, ToolFinished] = {}
        for call in calls:
            tool = tools.get(call.name)
            if call.problem or tool is None or call.name in self.skip or has_effects(tool, approval):
                continue
            recorded = self.index.find(call.name, call.arguments)
            if recorded is None or recorded.finished is None or recorded.finished.error is not None:
                continue
            was = recorded.finished
            out[call.call_id] = ToolFinished(
                run_id=run_id,
                step=step,
                call_id=call.call_id,
                tool=call.name,
                output=was.output,
                details=was.details,
                truncated=was.truncated,
                reused_from={
                    "session": self.session_id,
                    "run": self.run_id,
                    "step": recorded.step,
                    "call_id": recorded.call_id,
                },
            )
        return out
