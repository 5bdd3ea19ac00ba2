"""Folding a log in pieces gives exactly the transcript of folding it whole, whatever the pieces and the order."""

from __future__ import annotations

from dataclasses import fields, is_dataclass
from itertools import pairwise
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from agent_core.engine.agent import Agent
from agent_core.engine.state import Request, StepState
from agent_core.events import ApprovalDecided, ApprovalRequested, Event, ModelDelta, RunResumed
from agent_core.testing import ScriptedModel
from agent_core.tools import builtin_tools
from agent_core.views.transcript import Transcript
from tests.core.helpers import answer, react
from tests.observability.builders import T0, calculator_run, model, resumed_run, session, started, step


def shape(value: Any) -> Any:
    """Everything a fold built, as plain nested values: two folds are the same when their shapes are equal.

    A request is compared by its event and its complete messages (its link to the call before is how it is
    stored, not what it is), and so is a step by its run's id in place of its link to its run; a call met twice
    (in a step's actions and in the run's calls) is compared twice.
    """
    if isinstance(value, Transcript):
        return {"turns": shape(value.turns), "runs": shape(value.runs), "events": value.events_seen}
    if isinstance(value, Request):
        return ("request", value.event, value.messages())
    if is_dataclass(value) and not isinstance(value, type) and type(value).__module__ == "agent_core.engine.state":
        named = {f.name: getattr(value, f.name) for f in fields(value)}
        if isinstance(value, StepState):
            named["run"] = value.run.run_id
        return (type(value).__name__, {name: shape(item) for name, item in named.items()})
    if isinstance(value, dict):
        return {key: shape(item) for key, item in value.items()}
    if isinstance(value, list):
        return [shape(item) for item in value]
    return value


def _agent_run(run_id: str) -> list[Event]:
    """A real run with streamed text, a tool call and an answer."""
    replies = [react("Multiply.", "calculator", expression="6 * 7"), answer("Done.", "42")]
    return list(Agent(model=ScriptedModel(replies), tools=builtin_tools()).run("What is 6 * 7?", run_id=run_id))


def _approvals(run: str) -> list[Event]:
    """A call that waited for a person, and the decision."""
    asked = ApprovalRequested(run_id=run, ts=T0 + 0.1, step=1, call_id="call_1", tool="calculator", reason="why")
    return [asked, ApprovalDecided(run_id=run, ts=T0 + 0.2, step=1, call_id="call_1", tool="calculator", approved=True)]


POOL: list[Event] = [*session(), *resumed_run(), *calculator_run("r4"), *_approvals("r4"), *_agent_run("live")]
"""Events of several runs: hand-built, resumed, waiting for approval, and a real one with its deltas."""


def _cut(events: list[Event], cuts: list[int]) -> list[list[Event]]:
    points = sorted({min(c, len(events)) for c in cuts} | {0, len(events)})
    return [events[a:b] for a, b in pairwise(points)]


@settings(max_examples=150, deadline=None)
@given(
    order=st.lists(st.sampled_from(range(len(POOL))), max_size=70),
    cuts=st.lists(st.integers(0, 70), max_size=8),
)
def test_folding_in_pieces_is_folding_whole_at_every_prefix(order: list[int], cuts: list[int]) -> None:
    events = [POOL[i] for i in order]
    pieces = Transcript()
    seen = 0
    for piece in _cut(events, cuts):
        pieces.extend(piece)
        seen += len(piece)
        assert shape(pieces) == shape(Transcript.from_events(events[:seen]))
    assert shape(pieces) == shape(Transcript.from_events(events))


def test_a_real_run_folded_one_event_at_a_time_matches_every_prefix() -> None:
    events = _agent_run("r")
    assert any(isinstance(e, ModelDelta) for e in events)
    growing = Transcript()
    for n, event in enumerate(events, start=1):
        growing.add(event)
        assert shape(growing) == shape(Transcript.from_events(events[:n]))


@settings(max_examples=100, deadline=None)
@given(order=st.permutations(range(len(POOL))), left_out=st.sampled_from(["r1", "r2", "r3", "r4", "live"]))
def test_a_transcript_without_a_run_is_the_fold_of_the_other_runs(order: list[int], left_out: str) -> None:
    events = [POOL[i] for i in order]
    without = Transcript.from_events(events).without(left_out)
    others = Transcript.from_events(e for e in events if e.run_id != left_out)
    assert shape(without.turns) == shape(others.turns) and shape(without.runs) == shape(others.runs)
    with_it_again = without  # a live run's own fold then takes its place, at the end, as folding it last would
    with_it_again.extend(e for e in events if e.run_id == left_out)
    last = Transcript.from_events(
        [*(e for e in events if e.run_id != left_out), *(e for e in events if e.run_id == left_out)]
    )
    assert shape(with_it_again.turns) == shape(last.turns)


def test_a_step_reads_its_reply_off_its_latest_model_call_and_a_redone_step_waits_for_its_own() -> None:
    first = model("r", 2, 1.0, 250.0, (10, 5), thought="first try", text="Thought: first try")
    again = model("r", 2, 102.0, 500.0, (20, 6), thought="second try", text="Thought: second try", final_answer="42")
    events = [
        started("r", "q"),
        step("r", 1, 0.0),
        step("r", 2, 0.5),
        first,
        RunResumed(run_id="r", ts=T0 + 101, from_step=2),
    ]
    events.append(step("r", 2, 101.0))
    redoing = Transcript.from_events(events).turns[0].steps[1]
    assert redoing.text is None and redoing.thinking and redoing.attempt == 1  # its own reply has not come yet
    assert redoing.call is first and redoing.thought == "first try"  # the interrupted call is still the latest
    done = Transcript.from_events([*events, again]).turns[0].steps[1]
    assert done.call is again and done.text == "Thought: second try" and done.final_answer == "42"
    assert (done.call.usage, done.call.latency_ms, done.model_calls) == (again.usage, 500.0, [first, again])
    assert (done.usage, done.latency_ms) == (first.usage + again.usage, 750.0)  # the step's figures: both calls
