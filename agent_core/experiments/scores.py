"""What a scorer gets (the run, read off its events) and what it gives back (a Score with its reason)."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from pydantic import BaseModel, ConfigDict, Field

from agent_core.events import Event, ModelFinished, RunFinished, ToolFinished, ToolStarted
from agent_core.experiments.items import DatasetItem

MAX_REASON_CHARS = 300


class Score(BaseModel):
    """One check's verdict: pass/fail and a value in 0..1, with a one-sentence reason."""

    model_config = ConfigDict(frozen=True)

    name: str
    """The check's kind (``contains``...) or the custom scorer's name."""
    passed: bool
    value: float = Field(ge=0, le=1)
    """1.0 for a pass, 0.0 for a fail, or a partial score a custom scorer or judge gave."""
    reason: str = Field(max_length=MAX_REASON_CHARS)
    error: bool = False
    """True when the scorer itself failed (it raised, or the judge could not be asked): not the answer's fault."""
    judge_run: str | None = None
    """The judge's run, recorded in the item's session (``SESSION:RUN`` opens it)."""

    @classmethod
    def of(cls, name: str, passed: bool, reason: str, *, value: float | None = None) -> Score:
        """A score, its value 1/0 unless given, its reason cut to one short sentence."""
        text = " ".join(reason.split())
        if len(text) > MAX_REASON_CHARS:
            text = text[: MAX_REASON_CHARS - 1] + "…"
        return cls(name=name, passed=passed, value=float(passed) if value is None else value, reason=text)


@dataclass(frozen=True)
class RunFacts:
    """What the checks read of one run: its answer, tool calls, steps, format retries, cost and time."""

    answer: str
    status: str
    steps: int
    tools_called: tuple[str, ...]
    format_retries: int
    repeated_actions: int
    tool_errors: int
    latency_ms: float
    cost: float | None
    error: str | None = None

    @classmethod
    def of(cls, events: Sequence[Event], cost: float | None) -> RunFacts:
        """The facts of a run's events (the last ``run_finished`` gives answer, status, steps and time)."""
        finished = next((e for e in reversed(events) if isinstance(e, RunFinished)), None)
        started = [e for e in events if isinstance(e, ToolStarted)]
        calls = Counter((e.tool, json.dumps(e.arguments, sort_keys=True, default=str)) for e in started)
        return cls(
            answer=(finished.final_answer if finished else None) or "",
            status=finished.status if finished else "error",
            steps=finished.steps if finished else 0,
            tools_called=tuple(e.tool for e in started),
            format_retries=sum(1 for e in events if isinstance(e, ModelFinished) and e.format_error),
            repeated_actions=sum(n - 1 for n in calls.values()),
            tool_errors=sum(1 for e in events if isinstance(e, ToolFinished) and e.error),
            latency_ms=finished.duration_ms if finished else 0.0,
            cost=cost,
            error=finished.error if finished else "the run ended without a run_finished event",
        )


Judge = Callable[[str, DatasetItem, RunFacts], Score]
"""Asks a judge model about an answer with a rubric (see ``judge``)."""


@dataclass(frozen=True)
class ScoringContext:
    """Everything a scorer may read: the item, the run's facts and events, and the judge to ask."""

    item: DatasetItem
    facts: RunFacts
    events: Sequence[Event] = ()
    judge: Judge | None = None
    config: dict[str, object] = field(default_factory=dict)

    @property
    def answer(self) -> str:
        """The run's final answer ("" when it gave none)."""
        return self.facts.answer


def failure_of(facts: RunFacts, passed: bool) -> str | None:
    """Why a run failed, from its step states first, else ``wrong_answer``; None when it passed."""
    if passed:
        return None
    if facts.status != "completed":
        return {"max_steps": "max_steps", "timeout": "timeout", "format_error": "format_retries"}.get(
            facts.status, facts.status
        )
    for name, count in (
        ("format_retries", facts.format_retries),
        ("repeated_actions", facts.repeated_actions),
        ("tool_errors", facts.tool_errors),
    ):
        if count:
            return name
    return "wrong_answer"
