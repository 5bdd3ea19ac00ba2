"""A Markdown report of a session for sharing: per run the question, the steps, the answer and a metrics table, and
a closing table of who started each run when the names are given (runs recorded before attribution have none)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from agent_core.events import Event, RunFinished, ToolFinished, ToolStarted, Usage
from agent_core.formatting import format_cost, format_duration, format_tokens, plural
from agent_core.models.pricing import DEFAULT_TABLE, PriceTable
from agent_core.views.metrics import (
    RunMetrics,
    SessionMetrics,
    answer_request_line,
    metrics_summary,
    repeat_line,
    runs_metrics,
    tool_summary,
)
from agent_core.views.transcript import Transcript
from agent_core.views.turns import StepView, TurnView


@dataclass(frozen=True)
class ReportLimits:
    """How much of each long text the report keeps (the rest is cut with a note saying how much)."""

    thought: int = 1200
    arguments: int = 600
    observation: int = 800
    error: int = 400


def to_markdown(
    events: Iterable[Event],
    *,
    title: str = "Sparrow session",
    prices: PriceTable = DEFAULT_TABLE,
    limits: ReportLimits = ReportLimits(),
    starters: Mapping[str, str] | None = None,
) -> str:
    """The report: a summary of the session, then each run (turn) with its steps, answer and metrics; ``starters``
    (run id → who started it) adds a closing "Who started each run" table."""
    runs = Transcript.from_events(events).runs
    session = runs_metrics(runs, prices=prices)
    parts = [f"# {_inline(title)}", metrics_summary(session) if runs else "No runs recorded."]
    if len(runs) > 1:
        parts.append(_overview(session))
    for number, (run, metrics) in enumerate(zip(runs, session.runs, strict=True), start=1):
        parts.append(_run_section(number, run, metrics, limits))
    if starters:
        rows = [f"| `{run_id}` | {_inline(who)} |" for run_id, who in starters.items()]
        parts.append("\n".join(["## Who started each run", "", "| Run | Started by |", "| --- | --- |", *rows]))
    return "\n\n".join(parts) + "\n"


def _overview(session: SessionMetrics) -> str:
    rows = [
        "| # | Question | Status | Steps | Tokens | Cost | Duration |",
        "| --: | --- | --- | --: | --: | --: | --: |",
    ]
    for number, run in enumerate(session.runs, start=1):
        usage = run.usage
        cells = [
            str(number),
            _inline(_clip(run.question.splitlines()[0] if run.question else "", 80)),
            run.status or "unfinished",
            str(run.steps),
            format_tokens(usage.total_tokens, estimated=usage.estimated),
            format_cost(run.cost, estimated=usage.estimated),
            format_duration(run.duration_ms),
        ]
        rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows)


def _run_section(number: int, run: TurnView, metrics: RunMetrics, limits: ReportLimits) -> str:
    heading = _clip(metrics.question.splitlines()[0], 80) if metrics.question else metrics.run_id
    parts = [f"## Turn {number}: {_inline(heading)}"]
    if metrics.question:
        parts.append(_quote(metrics.question))
    about = [metrics.model or "unknown model", run.protocol, metrics.status or "unfinished"]
    parts.append("*" + " · ".join(_inline(a) for a in about if a) + "*")
    parts += [_step_section(step, limits) for step in run.numbered_steps]
    parts.append(_outcome(run.run_finished, limits))
    parts.append(_metrics_table(metrics))
    return "\n\n".join(parts)


def _step_section(step: StepView, limits: ReportLimits) -> str:
    lines = [f"### Step {step.number}"]
    m = step.call
    if m is None:
        lines.append("*No model reply was recorded for this step (the run was interrupted).*")
    else:
        if m.thought:
            lines.append(f"**Thought:** {_clip(m.thought, limits.thought)}")
        if m.error:
            lines.append(f"**Model error:** {_clip(m.error, limits.error)}")
        if m.format_error:
            lines.append(f"**Format problem:** {_clip(m.format_error, limits.error)} (the model was asked to retry)")
            lines.append("The model wrote:\n\n" + _fenced(_clip(m.text, limits.thought)))
        if m.final_answer is not None:
            lines.append("**Final answer given.**")
    for call in step.tool_calls:
        if call.repeated is not None:
            lines.append(f"*{repeat_line(call.repeated)}*")
        lines.append(_call(call.started, call.finished, limits, call.arguments))
    if step.answer_requested is not None:
        lines.append(f"*{answer_request_line(step.answer_requested)}*")
    return "\n\n".join(lines)


def _call(begun: ToolStarted | None, done: ToolFinished | None, limits: ReportLimits, known: dict[str, Any]) -> str:
    either = begun or done
    name = either.tool if either is not None else "?"
    arguments = begun.arguments if begun is not None else known
    args = json.dumps(arguments, ensure_ascii=False) if begun is not None or known else "(not recorded)"
    lines = [f"**Action:** {_code(name)}", _fenced(_clip(args, limits.arguments), "json")]
    if done is None:
        lines.append("**Observation:** *none: the call never finished (the run was interrupted).*")
        return "\n\n".join(lines)
    failed = f"✗ {_clip(done.error, limits.error)} · " if done.error else ""
    lines.append(f"**Observation** ({failed}{format_duration(done.duration_ms)}):")
    lines.append(_fenced(_clip(done.output, limits.observation)))
    return "\n\n".join(lines)


def _outcome(finished: RunFinished | None, limits: ReportLimits) -> str:
    if finished is None:
        return "**No answer:** the run has no end recorded (still running, or interrupted)."
    if finished.final_answer is not None:
        return "**Answer:**\n\n" + finished.final_answer
    reason = f": {_clip(finished.error, limits.error)}" if finished.error else ""
    return f"**No answer** ({finished.status}){reason}"


def _details(usage: Usage) -> str:
    """`` · 512 cached · 40 reasoning`` when the provider counted them, else nothing."""
    parts = [(usage.cached_tokens, "cached"), (usage.reasoning_tokens, "reasoning")]
    return "".join(f" · {format_tokens(count)} {name}" for count, name in parts if count)


def _metrics_table(m: RunMetrics) -> str:
    usage = m.usage
    estimated = " (estimated)" if usage.estimated else ""
    rows = [
        ("Status", m.status or "unfinished"),
        ("Steps", f"{m.steps} ({plural(m.model_calls, 'model call')})"),
        (
            "Tokens",
            f"{format_tokens(usage.prompt_tokens, estimated=usage.estimated)} prompt · "
            f"{format_tokens(usage.completion_tokens, estimated=usage.estimated)} completion{estimated}"
            + _details(usage),
        ),
        ("Model time", format_duration(m.model_ms)),
        ("Time to first token (mean)", format_duration(m.ttft_ms)),
        ("Tools", tool_summary(m.tools)),
        ("Format retries", str(m.format_errors)),
        ("Model errors", str(m.model_errors)),
        ("Cost", format_cost(m.cost, estimated=usage.estimated)),
        ("Duration", format_duration(m.duration_ms)),
    ]
    return "\n".join(["| Metric | Value |", "| --- | --- |", *(f"| {k} | {_inline(v)} |" for k, v in rows)])


def _clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, saying how much was left out."""
    if len(text) <= limit:
        return text
    return f"{text[:limit].rstrip()}… [{len(text) - limit:,} more characters]"


def _fenced(text: str, language: str = "") -> str:
    """A code block whose fence is longer than any run of backticks inside ``text``."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{text}\n{fence}"


def _code(text: str) -> str:
    """Inline code that survives backticks inside ``text``."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _quote(text: str) -> str:
    return "\n".join(f"> {line}" if line else ">" for line in text.splitlines())


def _inline(text: str) -> str:
    """One line of text, safe in a heading or emphasis (no newlines, no stray markup characters)."""
    return re.sub(r"([\\`*_#\[\]<>|])", r"\\\1", " ".join(text.split()))
