"""Metrics of steps, runs (turns) and sessions, read off the folded transcript: pure functions, no I/O.

Everything is derived from the event log (through :class:`~agent_core.views.transcript.Transcript`, the one
fold of events into turns, steps and calls), so a live run, a reloaded session and an imported file give
the same figures. Costs come from a :class:`~agent_core.models.pricing.PriceTable`; a model without a price
gives ``cost=None`` (shown as "—"), and a sum that includes an unknown cost is unknown too.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from agent_core.events import Event, ModelFinished, Usage
from agent_core.models.pricing import DEFAULT_TABLE, PriceTable
from agent_core.views.formatting import format_cost, format_duration, format_tokens, plural
from agent_core.views.transcript import Transcript
from agent_core.views.turns import ActionView, StepView, TurnView


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
    """One run: a question, its steps and its outcome."""

    per_step: tuple[StepMetrics, ...]
    """The run's steps in order."""


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


def step_metrics(
    events: Sequence[Event], run_id: str | None = None, *, prices: PriceTable = DEFAULT_TABLE
) -> tuple[StepMetrics, ...]:
    """Metrics of each step of one run (default: the last run in ``events``)."""
    return run_metrics(events, run_id, prices=prices).per_step


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
        ttft_ms=_mean([m.ttft_ms for t in turns for m in _model_calls(t) if m.ttft_ms is not None]),
        tool_calls=sum(r.tool_calls for r in runs),
        tool_errors=sum(r.tool_errors for r in runs),
        tool_ms=sum(r.tool_ms for r in runs),
        tools=_tool_stats(_merged(_tool_totals(t) for t in turns)),
        format_errors=sum(r.format_errors for r in runs),
        model_errors=sum(r.model_errors for r in runs),
        cost=_sum_costs(r.cost for r in runs),
    )


def turn_metrics(turn: TurnView, *, prices: PriceTable = DEFAULT_TABLE) -> RunMetrics:
    """Metrics of one folded run, priced at the endpoint the run recorded (``PriceTable.for_run``)."""
    prices = prices.for_run(turn.run_started)
    run_model = turn.model
    per_step = tuple(_step(turn.run_id, s, run_model, prices) for s in sorted(turn.steps, key=_number))
    return RunMetrics(
        run_id=turn.run_id,
        question=turn.question,
        model=run_model or next((s.model for s in per_step if s.model), ""),
        status=turn.run_finished.status if turn.run_finished else None,
        started_at=turn.first_ts,
        duration_ms=turn.worked_ms,
        steps=len(per_step),
        model_calls=sum(s.model_calls for s in per_step),
        usage=sum((s.usage for s in per_step), Usage()),
        model_ms=sum(s.latency_ms for s in per_step),
        ttft_ms=_mean([m.ttft_ms for m in _model_calls(turn) if m.ttft_ms is not None]),
        tool_calls=sum(len(s.tools) for s in per_step),
        tool_errors=sum(s.tool_errors for s in per_step),
        tool_ms=sum(s.tool_ms for s in per_step),
        tools=_tool_stats(_tool_totals(turn)),
        format_errors=sum(s.format_error is not None for s in per_step),
        model_errors=sum(s.error is not None for s in per_step),
        cost=_sum_costs(s.cost for s in per_step),
        per_step=per_step,
    )


def calls_cost(calls: Sequence[ModelFinished], model: str, prices: PriceTable) -> float | None:
    """USD cost of model calls, each at the price in force when it was made; None when one is unknown.

    ``prices``: the table of the run the calls belong to (``prices.for_run(turn.run_started)``).
    """
    total: float | None = 0.0
    for m in calls:
        total = _add(total, prices.cost(m.usage, m.model or model, m.ts))
    return total


def _step(run_id: str, step: StepView, run_model: str, prices: PriceTable) -> StepMetrics:
    """The figures of one folded step: its model calls (a re-run one included) and its finished tool calls."""
    model, usage, latency = run_model, Usage(), 0.0
    ttft: float | None = None
    cost_total: float | None = 0.0
    format_error: str | None = None
    error: str | None = None
    calls = step.model_calls
    for m in calls:
        model = m.model or run_model
        usage += m.usage
        latency += m.latency_ms
        if m.ttft_ms is not None:
            ttft = m.ttft_ms if ttft is None else min(ttft, m.ttft_ms)
        format_error, error = m.format_error or format_error, m.error or error
        cost_total = _add(cost_total, prices.cost(m.usage, model, m.ts))
    tools: list[str] = []
    tool_errors, tool_ms = 0, 0.0
    for action in step.tool_calls:
        done = action.finished if _ran(action) else None
        if done is not None:
            tools.append(done.tool)
            tool_errors += done.error is not None
            tool_ms += done.duration_ms
    return StepMetrics(
        run_id=run_id,
        step=step.number,
        model=model,
        model_calls=len(calls),
        usage=usage,
        latency_ms=latency,
        ttft_ms=ttft,
        tools=tuple(tools),
        tool_errors=tool_errors,
        tool_ms=tool_ms,
        format_error=format_error,
        error=error,
        cost=cost_total,
    )


def _number(step: StepView) -> int:
    return step.number


def _model_calls(turn: TurnView) -> list[ModelFinished]:
    return [c for c in turn.calls if isinstance(c, ModelFinished)]


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


def _ran(action: ActionView) -> bool:
    """False for a repeat answered from the record (``repeat_policy`` ``redirect``): it is no call of the tool."""
    return action.repeated is None or action.repeated.ran


def _tool_totals(turn: TurnView) -> dict[str, _ToolAcc]:
    """Per-tool totals of a run's finished calls."""
    tools: dict[str, _ToolAcc] = {}
    for call in turn.calls:
        done = call.finished if isinstance(call, ActionView) and _ran(call) else None
        if done is not None:
            acc = tools.get(done.tool) or tools.setdefault(done.tool, _ToolAcc())
            acc.add(done.duration_ms, done.error is not None)
    return tools


def _merged(runs: Iterable[dict[str, _ToolAcc]]) -> dict[str, _ToolAcc]:
    """Per-tool totals of several runs (run by run, as the runs' own figures were summed)."""
    tools: dict[str, _ToolAcc] = {}
    for run in runs:
        for name, acc in run.items():
            tools.setdefault(name, _ToolAcc()).merge(acc)
    return tools


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
