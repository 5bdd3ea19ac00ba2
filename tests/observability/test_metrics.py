"""Metrics from hand-built event lists, compared as whole structures; cost with and without a known price."""

from __future__ import annotations

import dataclasses

import pytest

from agent_core import Agent
from agent_core.engine.state import StepState
from agent_core.events import Event, RunFinished, Usage
from agent_core.models.pricing import DEFAULT_TABLE
from agent_core.testing import Reply, ScriptedModel
from agent_core.tools import builtin_tools
from agent_core.views.metrics import (
    RunMetrics,
    SessionMetrics,
    ToolStats,
    metrics_summary,
    run_metrics,
    session_metrics,
    tool_summary,
)
from agent_core.views.transcript import Transcript
from tests.observability.builders import (
    MODEL,
    PRICES,
    T0,
    calculator_run,
    failed_run,
    finished,
    model,
    resumed_run,
    session,
    started,
    step,
    tool_end,
    tool_start,
)


def cost(prompt: int, completion: int) -> float:
    """What ``test-model`` charges: $2 / $8 per million tokens."""
    return (prompt * 2.0 + completion * 8.0) / 1_000_000


def steps_of(events: list[Event], run_id: str | None = None) -> list[StepState]:
    """The steps of one run (default: the last), in number order."""
    turn = Transcript.from_events(events).run(run_id)
    assert turn is not None
    return turn.numbered_steps


def figures(step: StepState) -> dict[str, object]:
    """Every figure a step has (the metrics' contract), its cost at the test prices."""
    return dict(
        run_id=step.run_id, step=step.number, model=step.model, model_calls=len(step.model_calls), usage=step.usage,
        latency_ms=step.latency_ms, ttft_ms=step.ttft_ms, tools=step.tools, tool_errors=step.tool_errors,
        tool_ms=step.tool_ms, format_error=step.format_error, error=step.model_error, cost=step.cost(PRICES),
    )  # fmt: skip


CALCULATOR_STEPS = (
    dict(
        run_id="r1", step=1, model=MODEL, model_calls=1, usage=Usage(1000, 50), latency_ms=500.0, ttft_ms=125.0,
        tools=("calculator", "date_calculator"), tool_errors=1, tool_ms=375.0, format_error=None, error=None,
        cost=cost(1000, 50),
    ),
    dict(
        run_id="r1", step=2, model=MODEL, model_calls=1, usage=Usage(1200, 25), latency_ms=250.0, ttft_ms=None,
        tools=(), tool_errors=0, tool_ms=0.0, format_error="no Action line", error=None, cost=cost(1200, 25),
    ),
    dict(
        run_id="r1", step=3, model=MODEL, model_calls=1, usage=Usage(1300, 30), latency_ms=500.0, ttft_ms=250.0,
        tools=(), tool_errors=0, tool_ms=0.0, format_error=None, error=None, cost=cost(1300, 30),
    ),
)  # fmt: skip

CALCULATOR_RUN = RunMetrics(
    run_id="r1",
    question="What is 6*7, and what weekday is 2024-13-01?",
    model=MODEL,
    status="completed",
    started_at=T0,
    duration_ms=1500.0,
    steps=3,
    model_calls=3,
    usage=Usage(3500, 105),
    model_ms=1250.0,
    ttft_ms=187.5,
    tool_calls=2,
    tool_errors=1,
    tool_ms=375.0,
    tools=(
        ToolStats("calculator", calls=1, ok=1, errors=0, total_ms=250.0, mean_ms=250.0, max_ms=250.0),
        ToolStats("date_calculator", calls=1, ok=0, errors=1, total_ms=125.0, mean_ms=125.0, max_ms=125.0),
    ),
    format_errors=1,
    model_errors=0,
    cost=cost(1000, 50) + cost(1200, 25) + cost(1300, 30),
    prices=PRICES,
)

FAILED_RUN = RunMetrics(
    run_id="r2",
    question="And now?",
    model="llama3:8b",
    status="error",
    started_at=T0 + 10,
    duration_ms=250.0,
    steps=1,
    model_calls=1,
    usage=Usage(0, 0),
    model_ms=250.0,
    ttft_ms=None,
    tool_calls=0,
    tool_errors=0,
    tool_ms=0.0,
    tools=(),
    format_errors=0,
    model_errors=1,
    cost=None,
    prices=PRICES,
)
FAILED_STEP = dict(
    run_id="r2", step=1, model="llama3:8b", model_calls=1, usage=Usage(0, 0), latency_ms=250.0, ttft_ms=None,
    tools=(), tool_errors=0, tool_ms=0.0, format_error=None, error="connection refused", cost=None,
)  # fmt: skip


def test_run_metrics_of_a_hand_built_run() -> None:
    assert run_metrics(calculator_run(), prices=PRICES) == CALCULATOR_RUN
    assert tuple(figures(s) for s in steps_of(calculator_run())) == CALCULATOR_STEPS
    assert run_metrics(failed_run(), prices=PRICES) == FAILED_RUN
    assert [figures(s) for s in steps_of(failed_run())] == [FAILED_STEP]


def test_session_metrics_total_the_runs_and_an_unknown_price_makes_the_total_unknown() -> None:
    assert session_metrics(session(), prices=PRICES) == SessionMetrics(
        runs=(CALCULATOR_RUN, FAILED_RUN),
        duration_ms=1750.0,
        steps=4,
        model_calls=4,
        usage=Usage(3500, 105),
        model_ms=1500.0,
        ttft_ms=187.5,
        tool_calls=2,
        tool_errors=1,
        tool_ms=375.0,
        tools=CALCULATOR_RUN.tools,
        format_errors=1,
        model_errors=1,
        cost=None,
    )


def test_session_of_priced_runs_has_a_total_cost() -> None:
    two = calculator_run("a") + calculator_run("b")
    metrics = session_metrics(two, prices=PRICES)
    assert metrics.cost == CALCULATOR_RUN.cost * 2
    assert metrics.tools == (
        ToolStats("calculator", calls=2, ok=2, errors=0, total_ms=500.0, mean_ms=250.0, max_ms=250.0),
        ToolStats("date_calculator", calls=2, ok=0, errors=2, total_ms=250.0, mean_ms=125.0, max_ms=125.0),
    )


def test_default_price_table_prices_a_known_model_and_not_an_unknown_one() -> None:
    events = [
        started("r", "q", model="gpt-4o-mini"),
        step("r", 1, 0.0),
        model("r", 1, 0.5, 500.0, (1_000_000, 1_000_000), model="gpt-4o-mini", final_answer="x"),
        finished("r", 0.5, "completed", 500.0),
    ]
    assert run_metrics(events).cost == pytest.approx(0.15 + 0.60)
    unknown = [dataclasses.replace(e, model="my-local-model") if hasattr(e, "model") else e for e in events]
    assert run_metrics(unknown).cost is None


def test_a_run_mixing_priced_and_unpriced_models_keeps_the_step_costs_it_knows() -> None:
    events = [
        started("r", "q"),
        step("r", 1, 0.0),
        model("r", 1, 0.25, 250.0, (1000, 0)),
        step("r", 2, 0.25),
        model("r", 2, 0.5, 250.0, (1000, 0), model="mystery"),
        finished("r", 0.5, "max_steps", 500.0),
    ]
    metrics = run_metrics(events, prices=PRICES)
    assert [(s.model, s.cost(PRICES)) for s in steps_of(events)] == [(MODEL, cost(1000, 0)), ("mystery", None)]
    assert metrics.cost is None


def test_a_resumed_run_counts_working_time_only_and_a_repeated_step_once() -> None:
    metrics = run_metrics(resumed_run(), prices=PRICES)
    # 1 s before the interruption + 500 ms measured after the resume; the 100 s pause is not work.
    assert (metrics.duration_ms, metrics.steps, metrics.model_calls) == (1500.0, 2, 2)
    assert metrics.usage == Usage(300, 30, estimated=True)
    assert [(s.number, len(s.model_calls), s.usage) for s in steps_of(resumed_run())] == [
        (1, 1, Usage(100, 10, True)),
        (2, 1, Usage(200, 20)),
    ]


def test_an_unfinished_run_has_no_status_and_counts_what_happened() -> None:
    events = [
        started("r", "q"),
        step("r", 1, 0.0),
        model("r", 1, 0.5, 500.0, (10, 5), calls=(("c1", "calculator", {}),)),
        tool_start("r", 1, "c1", "calculator", 0.5),
        tool_end("r", 1, "c1", "calculator", 0.75, 250.0, "1"),
        step("r", 2, 0.75),
    ]
    metrics = run_metrics(events, prices=PRICES)
    assert metrics == RunMetrics(
        run_id="r", question="q", model=MODEL, status=None, started_at=T0, duration_ms=750.0, steps=2,
        model_calls=1, usage=Usage(10, 5), model_ms=500.0, ttft_ms=None, tool_calls=1, tool_errors=0, tool_ms=250.0,
        tools=(ToolStats("calculator", 1, 1, 0, 250.0, 250.0, 250.0),), format_errors=0, model_errors=0,
        cost=cost(10, 5), prices=PRICES,
    )  # fmt: skip
    assert figures(steps_of(events)[1]) == dict(
        run_id="r", step=2, model=MODEL, model_calls=0, usage=Usage(), latency_ms=0.0, ttft_ms=None, tools=(),
        tool_errors=0, tool_ms=0.0, format_error=None, error=None, cost=0.0,
    )  # fmt: skip


def test_metrics_of_a_real_agent_run_agree_with_its_run_finished_event() -> None:
    script = ScriptedModel(
        [
            Reply.call("calculator", expression="6*7"),
            Reply.call("date_calculator", operation="weekday", date="not a date"),
            Reply(text="It is 42.", usage=(120, 8)),
        ],
        name="gpt-4o-mini",
    )
    events = list(Agent(script, builtin_tools(), protocol="tools").run("6*7?"))
    last = events[-1]
    assert isinstance(last, RunFinished)
    metrics = run_metrics(events)
    assert (metrics.status, metrics.steps, metrics.tool_calls, metrics.usage, metrics.duration_ms) == (
        last.status,
        last.steps,
        last.tool_calls,
        last.usage,
        (last.ts - events[0].ts) * 1000,  # one definition: the time the run's events span (the waterfall's too)
    )
    assert metrics.duration_ms <= last.duration_ms  # the loop's own measure also counts the time before its start
    assert [(t.tool, t.calls, t.errors) for t in metrics.tools] == [("calculator", 1, 0), ("date_calculator", 1, 1)]
    assert metrics.cost == pytest.approx(DEFAULT_TABLE.cost(last.usage, "gpt-4o-mini"))
    assert metrics.usage.estimated  # the first two replies carried no usage


def test_a_repeat_not_run_again_is_no_tool_call() -> None:
    call = Reply.call("calculator", expression="17 * 23")
    events = list(Agent(ScriptedModel([call, call, "391"]), builtin_tools(), protocol="tools").run("17 * 23?"))
    last = events[-1]
    assert isinstance(last, RunFinished) and last.tool_calls == 1
    metrics = run_metrics(events)
    assert metrics.tool_calls == 1  # the repeat at step 2 was answered from the record, not run
    assert [(t.tool, t.calls) for t in metrics.tools] == [("calculator", 1)]
    assert [s.tools for s in steps_of(events)] == [("calculator",), (), ()]
    assert tool_summary(metrics.tools).startswith("1 tool call: calculator ×1")


def test_run_selection() -> None:
    events = session()
    assert run_metrics(events, prices=PRICES).run_id == "r2"  # the last run by default
    assert run_metrics(events, "r1", prices=PRICES) == CALCULATOR_RUN
    with pytest.raises(KeyError, match="no run 'nope'"):
        run_metrics(events, "nope")
    with pytest.raises(ValueError, match="no events"):
        run_metrics([])
    assert session_metrics([]).runs == () and session_metrics([]).cost == 0.0


@pytest.mark.parametrize(
    ("tools", "expected"),
    [
        ((), "no tool calls"),
        ((ToolStats("calculator", 1, 1, 0, 4.0, 4.0, 4.0),), "1 tool call: calculator ×1 · 4 ms in tools"),
        (
            (
                ToolStats("calculator", 2, 2, 0, 700.0, 350.0, 400.0),
                ToolStats("date_calculator", 1, 0, 1, 500.0, 500.0, 500.0),
            ),
            "3 tool calls: calculator ×2, date_calculator ×1 · 1 error · 1.2 s in tools",
        ),
        (
            (ToolStats("web_search", 4, 1, 3, 125_000.0, 31_250.0, 60_000.0),),
            "4 tool calls: web_search ×4 · 3 errors · 2 min 5 s in tools",
        ),
    ],
)
def test_tool_summary(tools: tuple[ToolStats, ...], expected: str) -> None:
    assert tool_summary(tools) == expected


def test_metrics_summary_lines() -> None:
    assert metrics_summary(run_metrics(calculator_run(), prices=PRICES)) == "3 steps · 3.6k tokens · $0.0078 · 1.5 s"
    assert metrics_summary(session_metrics(session(), prices=PRICES)) == (
        "2 turns · 4 steps · 3.6k tokens · cost — · 1.8 s"
    )
    assert metrics_summary(run_metrics(resumed_run(), prices=PRICES)) == "2 steps · ~330 tokens · ~$0.00084 · 1.5 s"
