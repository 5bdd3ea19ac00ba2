"""Where a run's time and tokens went, read off the fold: one row per model call and per tool call for a waterfall
chart, each step's tokens, and the run's duration split into parts that add up (model, tools, Sparrow's start, its
work between calls). Times come from the events alone: a model call ends at its ``ModelFinished.ts`` and starts
``latency_ms`` earlier; a tool call starts at its ``ToolStarted.ts`` and lasts its measured ``duration_ms`` (the
``ToolFinished`` events of one step come once the whole batch is done, so their ``ts`` is the batch's end). Offsets
are milliseconds from the run's first event; in the split, calls of one step that ran in parallel count once, so the
parts add up to ``TurnView.worked_ms``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields
from typing import Any, Literal

from agent_core.events import Event, ModelFinished, ToolFinished, ToolStarted
from agent_core.views.transcript import Transcript
from agent_core.views.turns import ActionView, TurnView

CallKind = Literal["model", "tool"]


@dataclass(frozen=True, slots=True)
class TimedCall:
    """A model or tool call placed in time (unix seconds), with the events that describe it."""

    kind: CallKind
    step: int
    start: float
    """Unix time the call started."""
    end: float
    """Unix time the call ended (its start when it never finished)."""
    model_event: ModelFinished | None = None
    """The model call (``kind == "model"``)."""
    tool_started: ToolStarted | None = None
    """The tool call's start (``kind == "tool"``); None if only its end was recorded."""
    tool_finished: ToolFinished | None = None
    """The tool call's end; None if it never finished (an interrupted run)."""

    @property
    def finished(self) -> bool:
        """False for a tool call that never finished."""
        return self.kind == "model" or self.tool_finished is not None


@dataclass(frozen=True, slots=True)
class TimelineRow:
    """One bar of the waterfall: a model call or a tool call."""

    run_id: str
    row: int
    """0-based position in the run, in the order the calls started."""
    step: int
    kind: CallKind
    label: str
    """Model name for a model call, tool name for a tool call."""
    start_ms: float
    """Offset from the run's first event."""
    end_ms: float
    duration_ms: float
    """Model latency or tool duration as measured."""
    error: bool
    """The call failed (model error or tool error), or its reply had an unusable format."""
    error_text: str | None
    """Why: the model error, the format problem or the tool error."""
    tokens: int | None
    """Prompt + completion tokens of a model call; None for a tool call."""
    estimated: bool
    """The tokens are Sparrow's estimate."""
    call_id: str | None
    """The tool call id; None for a model call."""
    finished: bool
    """False for a tool call that never finished."""

    def to_dict(self) -> dict[str, Any]:
        """A plain dict (one chart record)."""
        return {name: getattr(self, name) for name in _ROW_FIELDS}


@dataclass(frozen=True, slots=True)
class TokenRow:
    """Prompt or completion tokens of one step (two rows per step: a long-format table for a stacked bar chart)."""

    run_id: str
    step: int
    kind: Literal["prompt", "completion"]
    tokens: int
    estimated: bool

    def to_dict(self) -> dict[str, Any]:
        """A plain dict (one chart record)."""
        return {name: getattr(self, name) for name in _TOKEN_FIELDS}


@dataclass(frozen=True, slots=True)
class Timeline:
    """Everything the waterfall and the tokens chart of one run need."""

    run_id: str
    started_at: float
    """Unix time of the run's first event (offset 0)."""
    span_ms: float
    """From the first to the last event of the run (wall-clock, including any pause before a resume)."""
    rows: tuple[TimelineRow, ...]
    tokens: tuple[TokenRow, ...]


_ROW_FIELDS = tuple(f.name for f in fields(TimelineRow))
_TOKEN_FIELDS = tuple(f.name for f in fields(TokenRow))


def timed_calls(events: Iterable[Event]) -> list[TimedCall]:
    """The model and tool calls of one run's events, in the order they started."""
    turn = Transcript.from_events(events).run()
    return turn_calls(turn) if turn is not None else []


def turn_calls(turn: TurnView) -> list[TimedCall]:
    """The model and tool calls of one folded run, in the order they started."""
    return [timed_call(call) for call in turn.calls]


def timed_call(call: ModelFinished | ActionView) -> TimedCall:
    """One folded call (an entry of ``TurnView.calls``) placed in time."""
    if isinstance(call, ModelFinished):
        return TimedCall("model", call.step, call.ts - call.latency_ms / 1000, call.ts, call)
    begun, done = call.started, call.finished
    if begun is None:  # no ToolStarted recorded: place the call just before its end
        assert done is not None  # the fold logs a call once it started or finished
        return TimedCall("tool", call.step, done.ts - done.duration_ms / 1000, done.ts, tool_finished=done)
    end = begun.ts + done.duration_ms / 1000 if done is not None else begun.ts
    return TimedCall("tool", call.step, begun.ts, end, None, begun, done)


def build_timeline(events: Sequence[Event], run_id: str | None = None) -> Timeline:
    """The timeline of one run (default: the last run in ``events``); KeyError if there is no such run."""
    turn = Transcript.from_events(events).run(run_id)
    if turn is None:
        raise ValueError("no events: cannot build a timeline")
    return turn_timeline(turn)


def turn_timeline(turn: TurnView) -> Timeline:
    """The timeline of one folded run."""
    origin, rid = turn.first_ts, turn.run_id
    calls = turn_calls(turn)
    rows = tuple(_row(rid, i, call, origin, turn.model) for i, call in enumerate(calls))
    return Timeline(rid, origin, _ms(turn.last_ts - origin), rows, _token_rows(turn))


def _row(run_id: str, index: int, call: TimedCall, origin: float, run_model: str) -> TimelineRow:
    start, end = _ms(call.start - origin), _ms(call.end - origin)
    common = {"run_id": run_id, "row": index, "step": call.step, "start_ms": start, "end_ms": end}
    if call.model_event is not None:
        m = call.model_event
        problem = m.error or m.format_error
        return TimelineRow(
            **common,
            kind="model",
            label=m.model or run_model,
            duration_ms=m.latency_ms,
            error=problem is not None,
            error_text=problem,
            tokens=m.usage.total_tokens,
            estimated=m.usage.estimated,
            call_id=None,
            finished=True,
        )
    done, begun = call.tool_finished, call.tool_started
    either = done or begun
    return TimelineRow(
        **common,
        kind="tool",
        label=either.tool if either else "",
        duration_ms=done.duration_ms if done else end - start,
        error=bool(done and done.error is not None),
        error_text=done.error if done else None,
        tokens=None,
        estimated=False,
        call_id=either.call_id if either else None,
        finished=done is not None,
    )


def _token_rows(turn: TurnView) -> tuple[TokenRow, ...]:
    """A prompt row and a completion row for each step that called the model (its calls' tokens)."""
    rows: list[TokenRow] = []
    for step in (step for step in turn.steps if step.requests):
        usage = step.usage
        rows.append(TokenRow(turn.run_id, step.number, "prompt", usage.prompt_tokens, usage.estimated))
        rows.append(TokenRow(turn.run_id, step.number, "completion", usage.completion_tokens, usage.estimated))
    return tuple(rows)


def records(rows: Iterable[TimelineRow | TokenRow]) -> list[dict[str, Any]]:
    """Rows as plain dicts: ``alt.Data(values=records(t.rows))`` or ``pandas.DataFrame(records(t.rows))``."""
    return [row.to_dict() for row in rows]


def _ms(seconds: float) -> float:
    """Seconds → milliseconds, rounded to the microsecond (timestamps are not more precise than that)."""
    return round(seconds * 1000, 3)


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
