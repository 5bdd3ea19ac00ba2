"""Where a run's time went, in parts that add up to its duration (``TurnView.worked_ms``, the one definition).

Model and tool time are wall-clock here (calls of one step that ran in parallel count once), so that the
parts add up: waiting for the model, in tools, Sparrow's start (before the first model call: building the
prompt from history, memory and tool schemas, and storing the question), and Sparrow's work between and
after calls (parsing replies, checking arguments and guards, storing each event).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from agent_core.views.timeline import turn_calls
from agent_core.views.turns import TurnView


@dataclass(frozen=True)
class TimeSplit:
    """A run's duration in four parts (milliseconds)."""

    model_ms: float
    """Waiting for the model, wall-clock."""
    tool_ms: float
    """In tools, wall-clock (parallel calls count once)."""
    start_ms: float
    """Before the first model call: the prompt built, memory read, the question stored."""
    between_ms: float
    """Between and after calls: replies parsed, arguments and guards checked, events stored."""

    @property
    def total_ms(self) -> float:
        """The sum of the parts: the run's duration."""
        return self.model_ms + self.tool_ms + self.start_ms + self.between_ms


def _covered_ms(spans: Iterable[tuple[float, float]]) -> float:
    """Milliseconds covered by the union of ``(start, end)`` spans in unix seconds."""
    total, reach = 0.0, float("-inf")
    for start, end in sorted(spans):
        if end > reach:
            total += end - max(start, reach)
            reach = end
    return total * 1000


def time_split(turn: TurnView) -> TimeSplit:
    """The run's duration split into model, tools, start and between calls (the last takes what is left)."""
    duration = turn.worked_ms
    calls = turn_calls(turn)
    model = min(duration, _covered_ms((c.start, c.end) for c in calls if c.kind == "model"))
    tools = min(duration - model, _covered_ms((c.start, c.end) for c in calls if c.kind == "tool"))
    first = min((c.start for c in calls), default=None)
    start = (first - turn.first_ts) * 1000 if first is not None else duration - model - tools
    start = max(0.0, min(start, duration - model - tools))
    return TimeSplit(model, tools, start, max(0.0, duration - model - tools - start))
