"""Hand-built events with exact timestamps (binary fractions of a second), so expected figures are exact."""

from __future__ import annotations

import json
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
    Usage,
)
from agent_core.models.pricing import Price, price_table

T0 = 1_700_000_000.0
"""Unix time of the first event of every hand-built session."""
MODEL = "test-model"
PRICES = price_table({MODEL: Price(2.0, 8.0)})
"""A table where ``test-model`` costs $2 / $8 per million tokens (exact in binary floating point)."""


def at(offset: float) -> float:
    """T0 plus ``offset`` seconds."""
    return T0 + offset


def started(run: str, question: str, offset: float = 0.0, model: str = MODEL, **kw: Any) -> RunStarted:
    """A ReAct run with temperature 0 starts ``offset`` s after T0."""
    return RunStarted(
        run_id=run,
        ts=at(offset),
        question=question,
        model=model,
        protocol=kw.pop("protocol", "react"),
        settings={"temperature": 0.0},
        **kw,
    )


def step(run: str, number: int, offset: float) -> StepStarted:
    """Step ``number`` starts."""
    return StepStarted(run_id=run, ts=at(offset), step=number, offered_tools=("calculator", "date_calculator"))


def model(
    run: str,
    number: int,
    offset: float,
    latency_ms: float,
    usage: tuple[int, int],
    *,
    estimated: bool = False,
    calls: tuple[tuple[str, str, dict[str, Any]], ...] = (),
    **kw: Any,
) -> ModelFinished:
    """A model call of ``latency_ms`` ends at ``offset``, with ``usage`` = (prompt, completion)."""
    return ModelFinished(
        run_id=run,
        ts=at(offset),
        step=number,
        model=kw.pop("model", MODEL),
        latency_ms=latency_ms,
        usage=Usage(*usage, estimated=estimated),
        tool_calls=tuple({"id": i, "name": n, "arguments": json.dumps(a)} for i, n, a in calls),
        **kw,
    )


def tool_start(run: str, number: int, call_id: str, tool: str, offset: float, **arguments: Any) -> ToolStarted:
    """A tool call starts."""
    return ToolStarted(run_id=run, ts=at(offset), step=number, call_id=call_id, tool=tool, arguments=arguments)


def tool_end(
    run: str,
    number: int,
    call_id: str,
    tool: str,
    offset: float,
    duration_ms: float,
    output: str,
    error: str | None = None,
) -> ToolFinished:
    """A tool call ends (the ToolFinished of a batch comes when the whole batch is done)."""
    return ToolFinished(
        run_id=run,
        ts=at(offset),
        step=number,
        call_id=call_id,
        tool=tool,
        output=output,
        error=error,
        duration_ms=duration_ms,
    )


def finished(run: str, offset: float, status: str, duration_ms: float, **kw: Any) -> RunFinished:
    """The run ends."""
    return RunFinished(run_id=run, ts=at(offset), status=status, duration_ms=duration_ms, **kw)  # type: ignore[arg-type]


CALLS = (("call_1", "calculator", {"expression": "6*7"}), ("call_2", "date_calculator", {"date": "2024-13-01"}))
"""The two tool calls the model asks for in step 1 of :func:`calculator_run`."""


def calculator_run(run: str = "r1") -> list[Event]:
    """Three steps: two parallel tool calls (one fails), a format error, then the answer. 1.5 s in all."""
    return [
        started(run, "What is 6*7, and what weekday is 2024-13-01?"),
        step(run, 1, 0.0),
        model(
            run, 1, 0.5, 500.0, (1000, 50), ttft_ms=125.0, thought="I need two tools.", finish_reason="tool_calls",
            calls=CALLS,
        ),
        tool_start(run, 1, "call_1", "calculator", 0.5, expression="6*7"),
        tool_start(run, 1, "call_2", "date_calculator", 0.5, date="2024-13-01"),
        tool_end(run, 1, "call_1", "calculator", 0.75, 250.0, "42"),
        tool_end(run, 1, "call_2", "date_calculator", 0.75, 125.0, "Error: bad date", error="bad date"),
        step(run, 2, 0.75),
        model(run, 2, 1.0, 250.0, (1200, 25), thought="hmm", text="Thought: hmm", format_error="no Action line"),
        step(run, 3, 1.0),
        model(run, 3, 1.5, 500.0, (1300, 30), ttft_ms=250.0, thought="done", final_answer="42", finish_reason="stop"),
        FinalAnswer(run_id=run, ts=at(1.5), step=3, text="42"),
        finished(run, 1.5, "completed", 1500.0, final_answer="42", steps=3, tool_calls=2, usage=Usage(3500, 105)),
    ]  # fmt: skip


def failed_run(run: str = "r2") -> list[Event]:
    """One step whose model call fails, with a local model that has no price."""
    return [
        started(run, "And now?", 10.0, model="llama3:8b"),
        step(run, 1, 10.0),
        model(run, 1, 10.25, 250.0, (0, 0), model="llama3:8b", error="connection refused"),
        finished(run, 10.25, "error", 250.0, error="connection refused", steps=1),
    ]


def session() -> list[Event]:
    """Both runs, as one session."""
    return calculator_run() + failed_run()


def resumed_run(run: str = "r3") -> list[Event]:
    """Interrupted after step 1 (at 1 s), resumed 100 s later, finished 0.5 s after that."""
    return [
        started(run, "Long question"),
        step(run, 1, 0.0),
        model(run, 1, 1.0, 1000.0, (100, 10), estimated=True),
        step(run, 2, 1.0),
        RunResumed(run_id=run, ts=at(101.0), from_step=2),
        step(run, 2, 101.0),
        model(run, 2, 101.5, 500.0, (200, 20), final_answer="done"),
        finished(run, 101.5, "completed", 500.0, final_answer="done", steps=2, usage=Usage(300, 30, True)),
    ]
