"""Metrics of runs (turns) and sessions, summed over the folded transcript's steps, and the one-line texts people read
under an answer or in a trace (metrics, tool summary, a repeated call, an answer requested): pure functions, no I/O.
A step's own figures (tokens, latency, ttft, tools, tool errors and time, errors, cost) are properties of
:class:`~agent_core.views.turns.StepView`, the one record of a step; a run's are the sums of its steps'. Everything
is derived from the event log (through :class:`~agent_core.views.transcript.Transcript`, the one fold of events into
turns, steps and calls), so a live run, a reloaded session and an imported file give the same figures. Costs come
from a :class:`~agent_core.models.pricing.PriceTable`; a model without a price gives ``cost=None`` (shown as "—"),
and a sum that includes an unknown cost is unknown too.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from agent_core.events import AnswerRequested, CallRepeated, Event, ModelFinished, ToolFinished, Usage
from agent_core.formatting import format_cost, format_duration, format_tokens, plural
from agent_core.models.pricing import DEFAULT_TABLE, PriceTable
from agent_core.views.transcript import Transcript
from agent_core.views.turns import TurnView


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


@dataclass(frozen=True)
class _Totals:
    """The figures a run and a session both have (a session's are the sums of its runs')."""

    duration_ms: float
    """Time the agent worked (a pause before a resume, or idle time between turns, is not counted)."""
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


@dataclass(frozen=True)
class _RunHead:
    """What identifies a run."""

    run_id: str
    question: str
    model: str
    """Model named in the run's RunStarted event."""
    status: str | None
    """Final status (``completed``, ``max_steps``, ``timeout``...); None while the run has no run_finished event."""
    started_at: float | None
    """Unix time of the run's first event."""


@dataclass(frozen=True)
class RunMetrics(_Totals, _RunHead):
    """One run: a question, its steps and its outcome (the steps' own figures: ``TurnView.numbered_steps``)."""

    prices: PriceTable
    """The table the run is priced with, at its endpoint (a step's cost: ``step.cost(metrics.prices)``)."""


@dataclass(frozen=True)
class _SessionRuns:
    runs: tuple[RunMetrics, ...]
    """Runs in the order they started."""


@dataclass(frozen=True)
class SessionMetrics(_Totals, _SessionRuns):
    """A session: its runs and their totals."""


def run_metrics(
    events: Sequence[Event], run_id: str | None = None, *, prices: PriceTable = DEFAULT_TABLE
) -> RunMetrics:
    """Metrics of one run (default: the last run in ``events``); KeyError if there is no such run."""
    turn = Transcript.from_events(events).run(run_id)
    if turn is None:
        raise ValueError("no events: cannot compute the metrics of a run")
    return turn_metrics(turn, prices=prices)


def session_metrics(events: Iterable[Event], *, prices: PriceTable = DEFAULT_TABLE) -> SessionMetrics:
    """Metrics of every run in ``events`` and their totals."""
    return runs_metrics(Transcript.from_events(events).runs, prices=prices)


def runs_metrics(
    turns: Sequence[TurnView], *, prices: PriceTable = DEFAULT_TABLE, per_run: Mapping[str, RunMetrics] | None = None
) -> SessionMetrics:
    """Metrics of folded runs (a session's ``Transcript.runs``) and their totals.

    ``per_run``: the runs' own metrics already computed (by run id, with these prices), taken as they are.
    """
    known = per_run or {}
    runs = tuple(known.get(turn.run_id) or turn_metrics(turn, prices=prices) for turn in turns)
    return SessionMetrics(
        runs=runs,
        duration_ms=sum(r.duration_ms for r in runs),
        steps=sum(r.steps for r in runs),
        model_calls=sum(r.model_calls for r in runs),
        usage=sum((r.usage for r in runs), Usage()),
        model_ms=sum(r.model_ms for r in runs),
        ttft_ms=_mean([ttft for t in turns for ttft in _ttfts(t)]),
        tool_calls=sum(r.tool_calls for r in runs),
        tool_errors=sum(r.tool_errors for r in runs),
        tool_ms=sum(r.tool_ms for r in runs),
        tools=_tool_stats(done for t in turns for done in _tool_results(t)),
        format_errors=sum(r.format_errors for r in runs),
        model_errors=sum(r.model_errors for r in runs),
        cost=_sum_costs(r.cost for r in runs),
    )


def turn_metrics(turn: TurnView, *, prices: PriceTable = DEFAULT_TABLE) -> RunMetrics:
    """Metrics of one folded run, summed over its steps, priced at the endpoint it recorded (``PriceTable.for_run``)."""
    prices = prices.for_run(turn.run_started)
    steps = turn.numbered_steps
    calls = [m for s in steps for m in s.model_calls]
    return RunMetrics(
        run_id=turn.run_id,
        question=turn.question,
        model=turn.model or next((s.model for s in steps if s.model), ""),
        status=turn.run_finished.status if turn.run_finished else None,
        started_at=turn.first_ts,
        duration_ms=turn.worked_ms,
        steps=len(steps),
        model_calls=len(calls),
        usage=sum((s.usage for s in steps), Usage()),
        model_ms=sum(s.latency_ms for s in steps),
        ttft_ms=_mean(_ttfts(turn)),
        tool_calls=sum(len(s.tools) for s in steps),
        tool_errors=sum(s.tool_errors for s in steps),
        tool_ms=sum(s.tool_ms for s in steps),
        tools=_tool_stats(_tool_results(turn)),
        format_errors=sum(bool(m.format_error) for m in calls),
        model_errors=sum(bool(m.error) for m in calls),
        cost=_sum_costs(s.cost(prices) for s in steps),
        prices=prices,
    )


def _ttfts(turn: TurnView) -> list[float]:
    """Times to first token of the run's streamed model calls."""
    return [m.ttft_ms for m in turn.calls if isinstance(m, ModelFinished) and m.ttft_ms is not None]


def _tool_results(turn: TurnView) -> Iterator[ToolFinished]:
    """The ends of a run's tool calls that ran."""
    return (done for step in turn.steps for done in step.tool_results)


def _tool_stats(results: Iterable[ToolFinished]) -> tuple[ToolStats, ...]:
    """Per-tool statistics of finished tool calls, most used first."""
    by_tool: dict[str, list[ToolFinished]] = {}
    for done in results:
        by_tool.setdefault(done.tool, []).append(done)
    stats = [_stats(tool, calls) for tool, calls in by_tool.items()]
    return tuple(sorted(stats, key=lambda t: (-t.calls, t.tool)))


def _stats(tool: str, calls: list[ToolFinished]) -> ToolStats:
    ms = [done.duration_ms for done in calls]
    errors = sum(done.error is not None for done in calls)
    return ToolStats(tool, len(ms), len(ms) - errors, errors, sum(ms), sum(ms) / len(ms), max(ms))


def _sum_costs(costs: Iterable[float | None]) -> float | None:
    total = 0.0
    for cost in costs:
        if cost is None:
            return None
        total += cost
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


def repeat_line(event: CallRepeated) -> str:
    """``↺ repeat of step 1, not run again`` (or ``run again`` under ``repeat_policy`` ``allow``)."""
    what = "run again" if event.ran else "not run again"
    return f"↺ {event.tool}: repeat of step {event.first_step}, {what}"


def answer_request_line(event: AnswerRequested) -> str:
    """``⇥ answer requested after 2 repeats (the reply schema allows only a final answer)``."""
    return f"⇥ answer requested after {plural(event.repeats, 'repeat')} ({event.narrowing})"
