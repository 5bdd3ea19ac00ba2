"""Metrics of steps, runs (turns) and sessions, computed from events alone: pure functions, one pass, no I/O.

Everything is derived from the event log, so a live run, a reloaded session and an imported file give
the same figures. Costs come from a :class:`~agent_core.pricing.PriceTable`; a model without a price
gives ``cost=None`` (shown as "—"), and a sum that includes an unknown cost is unknown too.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from agent_core.events import (
    Event,
    ModelDelta,
    ModelFinished,
    RunFinished,
    RunResumed,
    RunStarted,
    StepStarted,
    ToolFinished,
    Usage,
)
from agent_core.formatting import format_cost, format_duration, format_tokens, plural
from agent_core.pricing import DEFAULT_TABLE, PriceTable


@dataclass(frozen=True, slots=True)
class ToolStats:
    """How one tool fared: its calls, outcomes and timings."""

    tool: str
    """Tool name as the model requested it."""
    calls: int
    """Finished calls (successful or not)."""
    ok: int
    """Calls that returned without error."""
    errors: int
    """Calls that failed: unknown tool, invalid arguments, exception, timeout, cancel."""
    total_ms: float
    """Sum of the calls' durations."""
    mean_ms: float
    """Mean duration of a call."""
    max_ms: float
    """Duration of the slowest call."""


@dataclass(frozen=True, slots=True)
class StepMetrics:
    """One think → act → observe step."""

    run_id: str
    step: int
    """1-based step number within the run."""
    model: str
    """Model that answered (the run's model when the event does not say)."""
    model_calls: int
    """Model calls recorded for this step: 1 normally, 0 if interrupted before it ended, 2 if re-run on resume."""
    usage: Usage
    """Tokens of the step's model call(s); ``usage.estimated`` marks Sparrow's estimate."""
    latency_ms: float
    """Wall-clock time of the model call(s)."""
    ttft_ms: float | None
    """Time to first streamed token; None when the reply was not streamed."""
    tools: tuple[str, ...]
    """Names of the tools called in this step, in call order."""
    tool_errors: int
    """How many of those calls failed."""
    tool_ms: float
    """Sum of the tool calls' durations (they may have run in parallel)."""
    format_error: str | None
    """Why the reply could not be understood (the model was asked to retry)."""
    error: str | None
    """Why the model call itself failed."""
    cost: float | None
    """USD; None when the model's price is unknown."""


@dataclass(frozen=True, slots=True)
class RunMetrics:
    """One run: a question, its steps and its outcome."""

    run_id: str
    question: str
    model: str
    """Model named in the run's RunStarted event."""
    status: str | None
    """Final status (``completed``, ``max_steps``, ``timeout``...); None while the run has no run_finished event."""
    started_at: float | None
    """Unix time of the run's first event."""
    duration_ms: float
    """Time the agent worked on the run (a pause before a resume is not counted)."""
    steps: int
    """Steps started."""
    model_calls: int
    usage: Usage
    """Token totals; ``estimated`` when any call's usage was estimated."""
    model_ms: float
    """Total model latency."""
    ttft_ms: float | None
    """Mean time to first token over the streamed model calls."""
    tool_calls: int
    tool_errors: int
    tool_ms: float
    """Total time spent in tools."""
    tools: tuple[ToolStats, ...]
    """Per-tool statistics, most used first."""
    format_errors: int
    """Replies in an unusable format (each triggered a corrective retry, or ended the run)."""
    model_errors: int
    """Model calls that failed."""
    cost: float | None
    """USD; None when any model call's price is unknown."""
    per_step: tuple[StepMetrics, ...]
    """The run's steps in order."""


@dataclass(frozen=True, slots=True)
class SessionMetrics:
    """A session: its runs and their totals."""

    runs: tuple[RunMetrics, ...]
    """Runs in the order they started."""
    duration_ms: float
    """Sum of the runs' durations (idle time between turns is not counted)."""
    steps: int
    model_calls: int
    usage: Usage
    model_ms: float
    ttft_ms: float | None
    """Mean time to first token over all streamed model calls."""
    tool_calls: int
    tool_errors: int
    tool_ms: float
    tools: tuple[ToolStats, ...]
    format_errors: int
    model_errors: int
    cost: float | None
    """USD; None when any model call's price is unknown."""


class _StepAcc:
    """Mutable running totals of one step."""

    __slots__ = (
        "cost",
        "error",
        "format_error",
        "latency",
        "model",
        "model_calls",
        "tool_errors",
        "tool_ms",
        "tools",
        "ttft",
        "usage",
    )

    def __init__(self, model: str) -> None:
        self.model = model
        self.model_calls = 0
        self.usage = Usage()
        self.latency = 0.0
        self.ttft: float | None = None
        self.tools: list[str] = []
        self.tool_errors = 0
        self.tool_ms = 0.0
        self.format_error: str | None = None
        self.error: str | None = None
        self.cost: float | None = 0.0

    def add_model(self, event: ModelFinished, model: str, prices: PriceTable) -> None:
        """Count one model call of this step."""
        self.model = model
        self.model_calls += 1
        self.usage += event.usage
        self.latency += event.latency_ms
        if event.ttft_ms is not None:
            self.ttft = event.ttft_ms if self.ttft is None else min(self.ttft, event.ttft_ms)
        self.format_error = event.format_error or self.format_error
        self.error = event.error or self.error
        self.cost = _add(self.cost, prices.cost(event.usage, model))

    def add_tool(self, event: ToolFinished) -> None:
        """Count one finished tool call of this step."""
        self.tools.append(event.tool)
        self.tool_errors += event.error is not None
        self.tool_ms += event.duration_ms

    def freeze(self, run_id: str, step: int) -> StepMetrics:
        """The totals as an immutable StepMetrics."""
        return StepMetrics(
            run_id=run_id,
            step=step,
            model=self.model,
            model_calls=self.model_calls,
            usage=self.usage,
            latency_ms=self.latency,
            ttft_ms=self.ttft,
            tools=tuple(self.tools),
            tool_errors=self.tool_errors,
            tool_ms=self.tool_ms,
            format_error=self.format_error,
            error=self.error,
            cost=self.cost,
        )


class _ToolAcc:
    """Mutable running totals of one tool."""

    __slots__ = ("calls", "errors", "max_ms", "total_ms")

    def __init__(self) -> None:
        self.calls = 0
        self.errors = 0
        self.total_ms = 0.0
        self.max_ms = 0.0

    def add(self, duration_ms: float, failed: bool) -> None:
        """Count one call."""
        self.calls += 1
        self.errors += failed
        self.total_ms += duration_ms
        self.max_ms = max(self.max_ms, duration_ms)

    def merge(self, other: _ToolAcc) -> None:
        """Add another run's totals of the same tool."""
        self.calls += other.calls
        self.errors += other.errors
        self.total_ms += other.total_ms
        self.max_ms = max(self.max_ms, other.max_ms)


def split_runs(events: Iterable[Event]) -> dict[str, list[Event]]:
    """The events of each run, by run id, in the order the runs first appear."""
    runs: dict[str, list[Event]] = {}
    for event in events:
        bucket = runs.get(event.run_id)
        if bucket is None:
            bucket = runs[event.run_id] = []
        bucket.append(event)
    return runs


def run_events(events: Sequence[Event], run_id: str | None = None) -> list[Event]:
    """The events of run ``run_id`` (default: the last run in ``events``); KeyError if there is no such run."""
    runs = split_runs(events)
    if run_id is None:
        if not runs:
            return []
        run_id = next(reversed(runs))
    if run_id not in runs:
        raise KeyError(f"no run {run_id!r} in these events")
    return runs[run_id]


def run_metrics(
    events: Sequence[Event], run_id: str | None = None, *, prices: PriceTable = DEFAULT_TABLE
) -> RunMetrics:
    """Metrics of one run (default: the last run in ``events``)."""
    chosen = run_events(events, run_id)
    if not chosen:
        raise ValueError("no events: cannot compute the metrics of a run")
    return _run(chosen, prices)[0]


def step_metrics(
    events: Sequence[Event], run_id: str | None = None, *, prices: PriceTable = DEFAULT_TABLE
) -> tuple[StepMetrics, ...]:
    """Metrics of each step of one run (default: the last run in ``events``)."""
    return run_metrics(events, run_id, prices=prices).per_step


def session_metrics(events: Iterable[Event], *, prices: PriceTable = DEFAULT_TABLE) -> SessionMetrics:
    """Metrics of every run in ``events`` and their totals."""
    runs: list[RunMetrics] = []
    tools: dict[str, _ToolAcc] = {}
    ttfts: list[float] = []
    for chosen in split_runs(events).values():
        run, run_tools, run_ttfts = _run(chosen, prices)
        runs.append(run)
        ttfts += run_ttfts
        for name, acc in run_tools.items():
            tools.setdefault(name, _ToolAcc()).merge(acc)
    return SessionMetrics(
        runs=tuple(runs),
        duration_ms=sum(r.duration_ms for r in runs),
        steps=sum(r.steps for r in runs),
        model_calls=sum(r.model_calls for r in runs),
        usage=sum((r.usage for r in runs), Usage()),
        model_ms=sum(r.model_ms for r in runs),
        ttft_ms=_mean(ttfts),
        tool_calls=sum(r.tool_calls for r in runs),
        tool_errors=sum(r.tool_errors for r in runs),
        tool_ms=sum(r.tool_ms for r in runs),
        tools=_tool_stats(tools),
        format_errors=sum(r.format_errors for r in runs),
        model_errors=sum(r.model_errors for r in runs),
        cost=_sum_costs(r.cost for r in runs),
    )


def _run(events: list[Event], prices: PriceTable) -> tuple[RunMetrics, dict[str, _ToolAcc], list[float]]:
    """The metrics of one run's events, with its per-tool totals and TTFTs for the session's figures."""
    started = next((e for e in events if isinstance(e, RunStarted)), None)
    run_model = started.model if started else ""
    steps, tools, ttfts, finished = _scan(events, run_model, prices)
    run_id = events[0].run_id
    per_step = tuple(steps[n].freeze(run_id, n) for n in sorted(steps))
    run = RunMetrics(
        run_id=run_id,
        question=started.question if started else "",
        model=run_model or next((s.model for s in per_step if s.model), ""),
        status=finished.status if finished else None,
        started_at=events[0].ts,
        duration_ms=_duration_ms(events),
        steps=len(per_step),
        model_calls=sum(s.model_calls for s in per_step),
        usage=sum((s.usage for s in per_step), Usage()),
        model_ms=sum(s.latency_ms for s in per_step),
        ttft_ms=_mean(ttfts),
        tool_calls=sum(len(s.tools) for s in per_step),
        tool_errors=sum(s.tool_errors for s in per_step),
        tool_ms=sum(s.tool_ms for s in per_step),
        tools=_tool_stats(tools),
        format_errors=sum(s.format_error is not None for s in per_step),
        model_errors=sum(s.error is not None for s in per_step),
        cost=_sum_costs(s.cost for s in per_step),
        per_step=per_step,
    )
    return run, tools, ttfts


def _scan(
    events: list[Event], run_model: str, prices: PriceTable
) -> tuple[dict[int, _StepAcc], dict[str, _ToolAcc], list[float], RunFinished | None]:
    """One pass over a run's events: per-step and per-tool totals, TTFTs and the run's end."""
    steps: dict[int, _StepAcc] = {}
    tools: dict[str, _ToolAcc] = {}
    ttfts: list[float] = []
    finished: RunFinished | None = None
    for event in events:
        if isinstance(event, ModelDelta):
            continue
        if isinstance(event, StepStarted):
            _step(steps, event.step, run_model)
        elif isinstance(event, ModelFinished):
            model = event.model or run_model
            _step(steps, event.step, model).add_model(event, model, prices)
            if event.ttft_ms is not None:
                ttfts.append(event.ttft_ms)
        elif isinstance(event, ToolFinished):
            _step(steps, event.step, run_model).add_tool(event)
            acc = tools.get(event.tool) or tools.setdefault(event.tool, _ToolAcc())
            acc.add(event.duration_ms, event.error is not None)
        elif isinstance(event, RunFinished):
            finished = event
    return steps, tools, ttfts, finished


def _step(steps: dict[int, _StepAcc], number: int, model: str) -> _StepAcc:
    acc = steps.get(number)
    if acc is None:
        acc = steps[number] = _StepAcc(model)
    return acc


def _duration_ms(events: list[Event]) -> float:
    """Working time: each segment (start or resume → last event) plus the measured duration of the last one."""
    total = 0.0
    segment_start = last = events[0].ts
    for event in events:
        if isinstance(event, RunResumed):
            total += (last - segment_start) * 1000
            segment_start = event.ts
        elif isinstance(event, RunFinished):
            return total + event.duration_ms
        last = event.ts
    return total + (last - segment_start) * 1000


def _tool_stats(tools: dict[str, _ToolAcc]) -> tuple[ToolStats, ...]:
    ordered = sorted(tools.items(), key=lambda item: (-item[1].calls, item[0]))
    return tuple(
        ToolStats(name, a.calls, a.calls - a.errors, a.errors, a.total_ms, a.total_ms / a.calls, a.max_ms)
        for name, a in ordered
    )


def _add(total: float | None, cost: float | None) -> float | None:
    return None if total is None or cost is None else total + cost


def _sum_costs(costs: Iterable[float | None]) -> float | None:
    total: float | None = 0.0
    for cost in costs:
        total = _add(total, cost)
    return total


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def tool_summary(tools: Sequence[ToolStats]) -> str:
    """``3 tool calls: calculator ×2, date_calculator ×1 · 1 error · 1.2 s in tools`` (``no tool calls`` if none)."""
    calls = sum(t.calls for t in tools)
    if calls == 0:
        return "no tool calls"
    parts = [f"{plural(calls, 'tool call')}: " + ", ".join(f"{t.tool} ×{t.calls}" for t in tools)]
    errors = sum(t.errors for t in tools)
    if errors:
        parts.append(plural(errors, "error"))
    parts.append(f"{format_duration(sum(t.total_ms for t in tools))} in tools")
    return " · ".join(parts)


def metrics_summary(metrics: RunMetrics | SessionMetrics) -> str:
    """``2 turns · 5 steps · ~3.4k tokens · $0.0021 · 4.5 s``: one line for under an answer or a sidebar."""
    parts = [plural(len(metrics.runs), "turn")] if isinstance(metrics, SessionMetrics) else []
    usage = metrics.usage
    parts += [
        plural(metrics.steps, "step"),
        f"{format_tokens(usage.total_tokens, estimated=usage.estimated)} tokens",
        format_cost(metrics.cost, estimated=usage.estimated) if metrics.cost is not None else "cost —",
        format_duration(metrics.duration_ms),
    ]
    return " · ".join(parts)
