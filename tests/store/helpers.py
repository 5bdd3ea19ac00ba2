"""Shared helpers for the store tests: scripted runs, a sample of every event type, and row counts."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, text

from agent_core import Agent
from agent_core.events import (
    AnswerRequested,
    ApprovalDecided,
    ApprovalRequested,
    CallRepeated,
    Event,
    FinalAnswer,
    ModelDelta,
    ModelFinished,
    ModelSampled,
    OutputFlagged,
    RunFinished,
    RunForked,
    RunResumed,
    RunStarted,
    StepStarted,
    ToolFinished,
    ToolStarted,
    Usage,
)
from agent_core.models.chat import Message, ModelRequest
from agent_core.runtime.sessions import run_in_session
from agent_core.store import SessionStore
from agent_core.testing import FunctionModel
from tests.core.helpers import answer, react

TABLES = ("sessions", "events", "snapshots")


def arithmetic(messages: list[Message], request: ModelRequest) -> str:
    """A model that multiplies with the calculator, and answers follow-ups from what its context holds."""
    last = messages[-1]["content"]
    if last.startswith("Observation: "):
        return answer("I have it.", last.removeprefix("Observation: "))
    if m := re.search(r"what is (\d+)\s*\*\s*(\d+)", last, re.I):
        return react("multiply", "calculator", expression=f"{m[1]}*{m[2]}")
    if m := re.search(r"add (\d+) to that", last, re.I):
        previous = [x["content"] for x in messages if x["role"] == "assistant"][-1].removeprefix("Final Answer: ")
        return react("add", "calculator", expression=f"{previous}+{m[1]}")
    return answer("?", "I don't know")


def arithmetic_agent(**settings: Any) -> Agent:
    """An agent on the arithmetic fake model with the built-in tools."""
    return Agent(FunctionModel(arithmetic, name="fake-arith"), **settings)


def run(store: SessionStore, session_id: str, agent: Agent, question: str) -> list[Event]:
    """Run a question in a session to the end; every event the agent yielded."""
    return list(run_in_session(store, session_id, agent, question))


def persisted(events: list[Event]) -> list[Event]:
    """What the store keeps of a run by default: everything but ModelDelta."""
    return [e for e in events if not isinstance(e, ModelDelta)]


def every_event_type(run_id: str = "run_sample") -> list[Event]:
    """One event of each type (keep it complete: the codec test checks), with nested values and unicode."""
    usage = Usage(12, 3, estimated=True)
    return [
        RunStarted(
            run_id=run_id,
            ts=1.5,
            question='¿Qué día es? 今天星期几？ "quoted" \\ back',
            model="m",
            protocol="tools",
            tools=({"type": "function", "function": {"name": "calc", "parameters": {"type": "object"}}},),
            settings={"max_steps": 3, "time_limit": None, "nested": {"a": [1, 2.5, None, True]}},
        ),
        StepStarted(run_id=run_id, ts=2.0, step=1, offered_tools=("calc", "clock")),
        ModelDelta(run_id=run_id, ts=2.1, step=1, text="Thin", channel="reasoning"),
        ModelFinished(
            run_id=run_id,
            ts=2.2,
            step=1,
            model="m",
            text="call calc",
            reasoning="think",
            thought="I will call",
            tool_calls=({"id": "c1", "name": "calc", "arguments": '{"x": 1}'},),
            usage=usage,
            latency_ms=12.25,
            ttft_ms=None,
            finish_reason="tool_calls",
            messages=({"role": "system", "content": "s"}, {"role": "user", "content": "q"}),
        ),
        ToolStarted(run_id=run_id, ts=2.3, step=1, call_id="c1", tool="calc", arguments={"x": 1}),
        ToolFinished(
            run_id=run_id,
            ts=2.4,
            step=1,
            call_id="c1",
            tool="calc",
            output="1",
            details={"links": [{"url": "https://example.org", "title": "ex"}], "deep": {"a": {"b": {"c": [[]]}}}},
            error=None,
            duration_ms=0.5,
            truncated=True,
        ),
        ApprovalRequested(run_id=run_id, ts=2.41, step=1, call_id="c2", tool="shell", arguments={"cmd": "ls"}),
        ApprovalDecided(run_id=run_id, ts=2.42, step=1, call_id="c2", tool="shell", approved=False, by="policy"),
        OutputFlagged(
            run_id=run_id,
            ts=2.43,
            step=1,
            source="tool_output",
            findings=({"kind": "api_key", "label": "OpenAI key", "masked": "sk-…1234"},),
            call_id="c1",
        ),
        RunResumed(run_id=run_id, ts=2.5, from_step=2),
        FinalAnswer(run_id=run_id, ts=2.6, step=2, text="one"),
        RunFinished(run_id=run_id, ts=2.7, status="completed", final_answer="one", steps=2, tool_calls=1, usage=usage),
    ]


def branch_events(run_id: str = "run_sample") -> list[Event]:
    """One event of each type added since the old databases (a fork's marker, a re-sample, a repeated call, an
    answer requested): kept apart, the old databases of tests/store/data hold none."""
    return [
        CallRepeated(
            run_id=run_id,
            ts=2.44,
            step=1,
            call_id="c3",
            tool="calculator",
            arguments={"expression": "1"},
            first_step=1,
            repeats=1,
        ),
        AnswerRequested(
            run_id=run_id, ts=2.45, step=1, repeats=2, narrowing="the reply schema allows only a final answer"
        ),
        RunForked(
            run_id=run_id,
            ts=2.8,
            from_session="ses_a",
            from_run="run_a",
            at_step=2,
            edit={"kind": "observation", "call_id": "c1", "text": "двa"},
            copied_events=4,
        ),
        ModelSampled(run_id=run_id, ts=2.9, step=1, batch="b1", index=0, temperature=0.7, text="x", usage=Usage(1, 2)),
    ]


def table_counts(engine: Engine) -> dict[str, int]:
    """Rows per Sparrow table."""
    with engine.connect() as conn:
        return {t: conn.execute(text(f"SELECT COUNT(*) FROM {t}")).scalar_one() for t in TABLES}


def all_cells(db_file: Path) -> list[str]:
    """Every value of every row of every table of a SQLite file, as text."""
    conn = sqlite3.connect(db_file)
    try:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return [repr(cell) for t in tables for row in conn.execute(f'SELECT * FROM "{t}"') for cell in row]
    finally:
        conn.close()
