"""The transcript is the one fold of events: odd orders never raise, and every view reads the same calls."""

from __future__ import annotations

import ast
import random
from pathlib import Path

from agent_core.engine.state import _FOLDS
from agent_core.events import EVENT_TYPES, ApprovalDecided, ApprovalRequested, Event, RunResumed, ToolFinished
from agent_core.trace_export import build_spans, to_markdown
from agent_core.views.metrics import run_metrics, runs_metrics, session_metrics, turn_metrics
from agent_core.views.timeline import build_timeline, turn_timeline
from agent_core.views.transcript import Transcript
from tests.observability.builders import (
    PRICES,
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

ROOT = Path(__file__).resolve().parents[2]
VIEWS = [
    ROOT / "agent_core/views/metrics.py",
    ROOT / "agent_core/views/timeline.py",
    *ROOT.glob("agent_core/trace_export/*.py"),
]
"""The modules built on the transcript's fold."""


def every_view(events: list[Event]) -> None:
    """Build every view of ``events`` (each must simply not raise)."""
    transcript = Transcript.from_events(events)
    for turn in transcript.runs:
        turn_metrics(turn, prices=PRICES)
        turn_timeline(turn)
        _ = (turn.live_text, turn.pending_approvals, turn.worked_ms, [s.has_error for s in turn.steps])
    runs_metrics(transcript.runs, prices=PRICES)
    to_markdown(events, prices=PRICES)
    build_spans(events, session_id="s", include_content=True, prices=PRICES)


def test_shuffled_truncated_and_interleaved_logs_never_raise() -> None:
    pool = session() + resumed_run() + calculator_run("r4")
    rng = random.Random(9)
    for _ in range(200):
        events = rng.sample(pool, rng.randint(1, len(pool)))
        every_view(events)


def test_a_finish_without_its_start_and_a_start_without_its_finish_are_one_call_each_everywhere() -> None:
    events: list[Event] = [
        started("r", "q"),
        step("r", 1, 0.0),
        model("r", 1, 0.25, 250.0, (10, 2)),
        tool_end("r", 1, "lost", "calculator", 0.5, 125.0, "7"),
        tool_start("r", 1, "c2", "web_search", 0.5),
    ]
    turn = Transcript.from_events(events).turns[0]
    actions = turn.steps[0].actions
    assert [(a.call_id, a.started is not None, a.finished is not None) for a in actions] == [
        ("lost", False, True),
        ("c2", True, False),
    ]
    assert [(r.call_id, r.finished) for r in build_timeline(events).rows if r.kind == "tool"] == [
        ("lost", True),
        ("c2", False),
    ]
    assert run_metrics(events).tool_calls == 1
    report = to_markdown(events)
    assert report.count("**Action:**") == 2 and "(not recorded)" in report and "never finished" in report


def test_interleaved_runs_and_parallel_calls_pair_by_run_step_and_call_id() -> None:
    events: list[Event] = [
        started("a", "first"),
        started("b", "second", 0.125),
        step("a", 1, 0.25),
        step("b", 1, 0.25),
        tool_start("a", 1, "c", "calculator", 0.5, expression="1+1"),
        tool_start("b", 1, "c", "calculator", 0.5, expression="2+2"),
        tool_start("a", 1, "d", "date_calculator", 0.5),
        tool_end("b", 1, "c", "calculator", 0.75, 250.0, "4"),
        tool_end("a", 1, "d", "date_calculator", 0.75, 125.0, "Monday"),
        tool_end("a", 1, "c", "calculator", 0.75, 250.0, "2"),
        finished("b", 1.0, "completed", 875.0),
    ]
    transcript = Transcript.from_events(events)
    a, b = transcript.turns
    assert [(x.call_id, x.arguments, x.output) for x in a.steps[0].actions] == [
        ("c", {"expression": "1+1"}, "2"),
        ("d", {}, "Monday"),
    ]
    assert [(x.call_id, x.arguments, x.output) for x in b.steps[0].actions] == [("c", {"expression": "2+2"}, "4")]
    metrics = session_metrics(events)
    assert ([r.run_id for r in metrics.runs], metrics.tool_calls, metrics.runs[0].status) == (["a", "b"], 3, None)


def test_a_redone_step_keeps_the_interrupted_attempt_for_the_trace_but_not_for_the_chat() -> None:
    events: list[Event] = [
        started("r", "q"),
        step("r", 1, 0.0),
        model("r", 1, 0.5, 500.0, (10, 2)),
        tool_start("r", 1, "c", "calculator", 0.5),
        RunResumed(run_id="r", ts=T0 + 10.0, from_step=1),
        step("r", 1, 10.0),
        model("r", 1, 10.5, 500.0, (10, 2)),
        tool_start("r", 1, "c", "calculator", 10.5),
        tool_end("r", 1, "c", "calculator", 10.75, 250.0, "2"),
    ]
    step_view = Transcript.from_events(events).turns[0].steps[0]
    assert [(x.started.ts - T0, x.output) for x in step_view.actions if x.started] == [(10.5, "2")]
    assert [(x.started.ts - T0, x.output) for x in step_view.tool_calls if x.started] == [(0.5, None), (10.5, "2")]
    metrics = run_metrics(events)
    assert (metrics.model_calls, metrics.tool_calls, metrics.duration_ms) == (2, 1, 500.0 + 750.0)
    assert [r.finished for r in build_timeline(events).rows] == [True, False, True, True]


def test_a_denied_call_is_one_action_from_its_approval_to_its_end() -> None:
    common = {"run_id": "r", "step": 1, "call_id": "c", "tool": "shell"}
    events: list[Event] = [
        started("r", "q"),
        step("r", 1, 0.0),
        ApprovalRequested(**common, ts=T0 + 0.25, arguments={"cmd": "ls"}),
        ApprovalDecided(**common, ts=T0 + 0.5, approved=False),
        tool_start("r", 1, "c", "shell", 0.5, cmd="ls"),
        ToolFinished(**common, ts=T0 + 0.5, output="denied", error="denied by the user"),
    ]
    turn = Transcript.from_events(events).turns[0]
    assert [(a.approval, a.arguments, a.error) for a in turn.steps[0].actions] == [
        ("denied", {"cmd": "ls"}, "denied by the user")
    ]
    assert len(turn.calls) == 1 and run_metrics(events).tool_errors == 1


def test_events_without_a_run_start_are_a_run_for_the_exports_but_not_a_chat_turn() -> None:
    events = calculator_run()[1:]
    transcript = Transcript.from_events(events)
    assert (transcript.turns, [t.run_id for t in transcript.runs]) == ([], ["r1"])
    assert transcript.turn("r1") is None and run_metrics(events).steps == 3


def test_no_view_pairs_tool_calls_or_walks_events_for_steps_on_its_own() -> None:
    """Only the transcript folds: the views never test an event's class themselves."""
    folded = {"StepStarted", "ToolStarted", "ToolFinished", "RunResumed", "ModelDelta"}
    for path in VIEWS:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        checks = [
            node
            for node in ast.walk(tree)
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "isinstance"
        ]
        named = {n.id for c in checks for n in ast.walk(c.args[1]) if isinstance(n, ast.Name)}
        assert not named & folded, f"{path.name} folds events itself: {sorted(named & folded)}"


def test_every_event_type_has_its_fold() -> None:
    assert set(EVENT_TYPES.values()) <= set(_FOLDS)


def test_the_complete_request_of_each_step_is_rebuilt_from_the_stored_changes() -> None:
    system, question = {"role": "system", "content": "s"}, {"role": "user", "content": "q"}
    reply, observation = {"role": "assistant", "content": "a"}, {"role": "user", "content": "o"}
    events: list[Event] = [
        started("r", "q"),
        model("r", 1, 0.5, 500.0, (1, 1), messages=(system, question)),
        model("r", 2, 1.0, 500.0, (1, 1), messages=(reply, observation), messages_kept=2),
        model("r", 3, 1.5, 500.0, (1, 1), messages=(observation,), messages_kept=1),
    ]
    steps = Transcript.from_events(events).turns[0].steps
    assert [s.messages for s in reversed(steps)] == [
        (system, observation),
        (system, question, reply, observation),
        (system, question),
    ]


def test_every_model_call_of_a_step_keeps_its_complete_request() -> None:
    first, second = {"role": "user", "content": "1"}, {"role": "user", "content": "2"}
    events: list[Event] = [
        started("r", "q"),
        model("r", 1, 0.5, 500.0, (1, 1), messages=(first,)),
        RunResumed(run_id="r", ts=T0 + 10.0, from_step=1),
        model("r", 1, 10.5, 500.0, (1, 1), messages=(second,), messages_kept=1),
    ]
    step_view = Transcript.from_events(events).turns[0].steps[0]
    assert [(r.event.ts - T0, r.messages()) for r in step_view.requests] == [(0.5, (first,)), (10.5, (first, second))]
    assert step_view.model_calls == [r.event for r in step_view.requests]
