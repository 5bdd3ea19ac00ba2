"""Helpers to look at a run as a whole: a compact view of its events."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from agent_core.events import (
    Event,
    FinalAnswer,
    ModelFinished,
    RunFinished,
    RunResumed,
    RunStarted,
    StepStarted,
    ToolFinished,
    ToolStarted,
)
from agent_core.tools import tool


def simplify(events: Iterable[Event]) -> list[tuple[Any, ...]]:
    """One short tuple per event (deltas left out), for comparing whole runs."""
    out: list[tuple[Any, ...]] = []
    for e in events:
        if isinstance(e, RunStarted):
            out.append(("run_started", e.question))
        elif isinstance(e, RunResumed):
            out.append(("run_resumed", e.from_step))
        elif isinstance(e, StepStarted):
            out.append(("step", e.step))
        elif isinstance(e, ModelFinished):
            problem = e.error or e.format_error
            calls = [(c["name"], _arguments(c["arguments"])) for c in e.tool_calls]
            out.append(("model", e.thought, calls or e.final_answer or problem))
        elif isinstance(e, ToolStarted):
            out.append(("tool", e.tool, e.arguments))
        elif isinstance(e, ToolFinished):
            out.append(("observation", e.output, e.error))
        elif isinstance(e, FinalAnswer):
            out.append(("answer", e.text))
        elif isinstance(e, RunFinished):
            out.append(("finished", e.status, e.final_answer, e.error))
    return out


def _arguments(raw: str) -> Any:
    try:
        return json.loads(raw or "{}")
    except json.JSONDecodeError:
        return raw


def react(thought: str, action: str, **arguments: Any) -> str:
    """A well-formed ReAct action reply."""
    return f"Thought: {thought}\nAction: {action}\nAction Input: {json.dumps(arguments)}"


def answer(thought: str, text: str) -> str:
    """A well-formed ReAct final answer."""
    return f"Thought: {thought}\nFinal Answer: {text}"


TWO_TOOLS_ANSWER = "17 × 23 = 391, and 150 days after 2024-05-20 is 2024-10-17, a Thursday."
"""The answer to ``rule_llm.TWO_TOOLS`` (the question), from the rule-driven fake LLM or from TWO_TOOLS_REPLIES."""
TWO_TOOLS_REPLIES = (
    react("First I multiply 17 by 23.", "calculator", expression="17 * 23"),
    react("Now the date arithmetic.", "date_calculator", operation="add", date="2024-05-20", days=150),
    answer("Both results are in.", TWO_TOOLS_ANSWER),
)
"""A scripted model's three ReAct replies to ``rule_llm.TWO_TOOLS``: the calculator, the date calculator, the answer."""


@tool
def boom(reason: str) -> str:
    """Always fails, for tests.

    Args:
        reason: Text of the error.
    """
    raise ValueError(reason)


@tool
def sleepy(seconds: float) -> str:
    """Sleeps, for tests.

    Args:
        seconds: How long to sleep.
    """
    import time

    time.sleep(seconds)
    return f"slept {seconds}"


@tool
def long_text(size: int) -> str:
    """Returns a long text, for tests.

    Args:
        size: Number of characters.
    """
    return "x" * size
