"""Timeline rows for the waterfall and the tokens chart, from event timestamps."""

from __future__ import annotations

import time

import pytest

from agent_core.events import Event
from agent_core.views.metrics import run_metrics
from agent_core.views.timeline import Timeline, TimelineRow, TokenRow, build_timeline, records, timed_calls
from tests.observability.builders import (
    MODEL,
    T0,
    calculator_run,
    finished,
    model,
    resumed_run,
    session,
    started,
    step,
    tool_end,
    tool_start,
)


def model_row(row: int, step: int, start: float, end: float, tokens: int, problem: str | None = None) -> TimelineRow:
    """A finished model call of ``test-model``."""
    return TimelineRow(
        run_id="r1", row=row, step=step, kind="model", label=MODEL, start_ms=start, end_ms=end,
        duration_ms=end - start, error=problem is not None, error_text=problem, tokens=tokens, estimated=False,
        call_id=None, finished=True,
    )  # fmt: skip


def tool_row(row: int, call_id: str, tool: str, start: float, end: float, error: str | None = None) -> TimelineRow:
    """A finished tool call of step 1."""
    return TimelineRow(
        run_id="r1", row=row, step=1, kind="tool", label=tool, start_ms=start, end_ms=end, duration_ms=end - start,
        error=error is not None, error_text=error, tokens=None, estimated=False, call_id=call_id, finished=True,
    )  # fmt: skip


def test_timeline_of_a_run_places_every_call_and_the_tokens_of_every_step() -> None:
    assert build_timeline(calculator_run()) == Timeline(
        run_id="r1",
        started_at=T0,
        span_ms=1500.0,
        rows=(
            model_row(0, 1, 0.0, 500.0, 1050),
            # Parallel calls start together and last their measured duration.
            tool_row(1, "call_1", "calculator", 500.0, 750.0),
            tool_row(2, "call_2", "date_calculator", 500.0, 625.0, "bad date"),
            model_row(3, 2, 750.0, 1000.0, 1225, "no Action line"),
            model_row(4, 3, 1000.0, 1500.0, 1330),
        ),
        tokens=(
            TokenRow("r1", 1, "prompt", 1000, False),
            TokenRow("r1", 1, "completion", 50, False),
            TokenRow("r1", 2, "prompt", 1200, False),
            TokenRow("r1", 2, "completion", 25, False),
            TokenRow("r1", 3, "prompt", 1300, False),
            TokenRow("r1", 3, "completion", 30, False),
        ),
    )


def test_a_session_timeline_shows_the_chosen_run_and_the_last_by_default() -> None:
    events = session()
    assert build_timeline(events).run_id == "r2"
    assert build_timeline(events, "r1") == build_timeline(calculator_run())
    with pytest.raises(KeyError):
        build_timeline(events, "missing")
    with pytest.raises(ValueError, match="no events"):
        build_timeline([])


def test_interrupted_and_orphan_tool_calls_and_a_resume_gap() -> None:
    events: list[Event] = [
        started("r1", "q"),
        step("r1", 1, 0.0),
        model("r1", 1, 0.25, 250.0, (10, 2), estimated=True, model=""),
        tool_end("r1", 1, "lost", "calculator", 0.5, 125.0, "7"),  # its ToolStarted was never recorded
        tool_start("r1", 1, "c2", "web_search", 0.5),  # never finished: the process died here
    ]
    timeline = build_timeline(events)
    assert [(r.kind, r.label, r.start_ms, r.end_ms, r.duration_ms, r.finished, r.estimated) for r in timeline.rows] == [
        ("model", MODEL, 0.0, 250.0, 250.0, True, True),  # an empty model name falls back to the run's
        ("tool", "calculator", 375.0, 500.0, 125.0, True, False),
        ("tool", "web_search", 500.0, 500.0, 0.0, False, False),
    ]
    gap = build_timeline(resumed_run("r1"))
    assert (gap.span_ms, [(r.start_ms, r.end_ms) for r in gap.rows]) == (
        101_500.0,
        [(0.0, 1000.0), (101_000.0, 101_500.0)],
    )


def test_records_are_plain_dicts_ready_for_a_dataframe() -> None:
    pandas = pytest.importorskip("pandas")
    timeline = build_timeline(calculator_run())
    rows = records(timeline.rows)
    assert rows[1] == {
        "run_id": "r1", "row": 1, "step": 1, "kind": "tool", "label": "calculator", "start_ms": 500.0,
        "end_ms": 750.0, "duration_ms": 250.0, "error": False, "error_text": None, "tokens": None,
        "estimated": False, "call_id": "call_1", "finished": True,
    }  # fmt: skip
    frame = pandas.DataFrame(rows)
    assert frame.groupby("kind")["duration_ms"].sum().to_dict() == {"model": 1250.0, "tool": 375.0}
    tokens = pandas.DataFrame(records(timeline.tokens))
    assert tokens.pivot(index="step", columns="kind", values="tokens").to_dict("index") == {
        1: {"completion": 50, "prompt": 1000},
        2: {"completion": 25, "prompt": 1200},
        3: {"completion": 30, "prompt": 1300},
    }


def test_timed_calls_keep_the_events_they_came_from() -> None:
    calls = timed_calls(calculator_run())
    assert [(c.kind, c.step, c.start - T0, c.end - T0, c.finished) for c in calls] == [
        ("model", 1, 0.0, 0.5, True),
        ("tool", 1, 0.5, 0.75, True),
        ("tool", 1, 0.5, 0.625, True),
        ("model", 2, 0.75, 1.0, True),
        ("model", 3, 1.0, 1.5, True),
    ]
    assert calls[2].tool_started is not None and calls[2].tool_finished is not None
    assert (calls[2].tool_started.arguments, calls[2].tool_finished.error) == ({"date": "2024-13-01"}, "bad date")


def long_run(steps: int) -> list[Event]:
    """A run of ``steps`` steps, each a model call and one tool call, 10 ms apart."""
    events: list[Event] = [started("big", "q")]
    for n in range(1, steps + 1):
        t = n * 0.01
        events += [
            step("big", n, t),
            model("big", n, t + 0.004, 4.0, (100, 10), calls=(("c", "calculator", {}),)),
            tool_start("big", n, "c", "calculator", t + 0.004),
            tool_end("big", n, "c", "calculator", t + 0.005, 1.0, "1"),
        ]
    return [*events, finished("big", steps * 0.01 + 0.01, "max_steps", steps * 10.0)]


def test_building_the_timeline_and_metrics_stays_linear() -> None:
    """2,000 steps in well under the 300 ms-per-1,000-steps budget; an O(n²) slip would take seconds."""
    events = long_run(2000)
    begin = time.perf_counter()
    timeline = build_timeline(events)
    metrics = run_metrics(events)
    elapsed = time.perf_counter() - begin
    assert (len(timeline.rows), len(timeline.tokens), metrics.steps, metrics.tool_calls) == (4000, 4000, 2000, 2000)
    assert elapsed < 2.0, f"timeline + metrics of 2,000 steps took {elapsed:.2f} s"
