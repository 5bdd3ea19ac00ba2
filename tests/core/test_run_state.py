"""One RunState, folded once: the live loop's state is the fold of what it yielded, and a run cut anywhere goes on
from its fold as the uninterrupted run did.

Scripted runs are drawn: tool calls, repeats (answered from the record, then the request narrowed), replies not
understood, tool errors, outside content read (taint), parallel native calls, several steps, any protocol.
"""

from __future__ import annotations

import json
from dataclasses import fields, is_dataclass
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from agent_core import Agent
from agent_core.engine.loop import RunLoop
from agent_core.engine.state import ContextWindow, Request, RunState, StepState
from agent_core.events import EventBase, FinalAnswer, ModelFinished, RunFinished, RunResumed, StepStarted
from agent_core.guards.limits import CancelToken
from agent_core.models.chat import ModelRequest
from agent_core.testing import Reply, ScriptedModel
from agent_core.tools import Tool, ToolOutput, calculator
from tests.core.helpers import answer, react


def web_search(query: str) -> ToolOutput:
    """Search the web (outside content: the run is tainted once it has read it).

    Args:
        query: What to look for.
    """
    return ToolOutput(f"results for {query}", {"results": []})


TOOLS = [calculator, Tool(web_search)]
KINDS = ("call", "repeat", "search", "tool_error", "not_understood", "two_calls")
"""What a step of a drawn run does (``two_calls``: two calls in one reply for native tools, one call otherwise)."""


def reply(protocol: str, calls: list[tuple[str, dict[str, Any]]]) -> str | Reply:
    """A reply calling ``calls`` in ``protocol`` (the prompted protocols make the first call only)."""
    name, arguments = calls[0]
    if protocol == "tools":
        return Reply(text="calling", tool_calls=tuple(calls))
    if protocol == "json":
        return json.dumps({"action": {"tool": name, "arguments": arguments}})
    return react("calling", name, **arguments)


def script(protocol: str, kinds: list[str]) -> list[str | Reply]:
    """The replies of a drawn run: one per step, then the final answer."""
    out: list[str | Reply] = []
    for n, kind in enumerate(kinds):
        if kind == "not_understood":
            out.append("I am not sure what to do" if protocol != "json" else "not json at all")
            continue
        calls = {
            "call": [("calculator", {"expression": f"{n} + 1"})],
            "repeat": [("calculator", {"expression": "1 + 1"})],
            "search": [("web_search", {"query": f"q{n % 2}"})],
            "tool_error": [("calculator", {"expression": "2 +"})],
            "two_calls": [("calculator", {"expression": f"{n} * 2"}), ("calculator", {"expression": "1 + 1"})],
        }[kind]
        out.append(reply(protocol, calls))
    final = {"tools": "done", "json": json.dumps({"final_answer": "done"})}.get(protocol, answer("done", "done"))
    return [*out, final]


runs = st.tuples(
    st.sampled_from(["react", "tools", "json"]),
    st.lists(st.sampled_from(KINDS), min_size=1, max_size=7),
    st.sampled_from([1, 2, 6]),
)
"""(protocol, what each step does, steps kept in full in the context)."""


def agent(protocol: str, replies: list[str | Reply], keep_steps: int) -> Agent:
    """The agent of a drawn run (its replies scripted, no person asked: outside content is approved by policy)."""
    model = ScriptedModel(replies, keep_requests=None)
    return Agent(model, TOOLS, protocol=protocol, keep_steps=keep_steps, max_steps=20, require_approval=False)


def window(a: Agent) -> ContextWindow:
    """A context window as the agent's loop makes one."""
    return ContextWindow(a.protocol, list(a.tools), a.settings.keep_steps)


MEASURED = frozenset({"ts", "latency_ms", "ttft_ms", "duration_ms"})
"""Event fields measured as a run goes (two runs of one script differ in them)."""


LOOKUPS = frozenset({"by_key", "_indexed"})
"""The call index, made when a call is first looked up (from ``started_calls``, which is compared)."""


def timeless(event: EventBase) -> dict[str, Any]:
    """An event without what was measured as it happened."""
    return {k: v for k, v in event.to_dict().items() if k not in MEASURED}


def shape(value: Any) -> Any:
    """Everything a fold holds, as plain nested values (a step by its run's id in place of its link to its run, a
    request by its event and complete messages, a context window by the messages it sends)."""
    if isinstance(value, EventBase):
        return timeless(value)
    if isinstance(value, ContextWindow):
        return ("window", value.messages(), value.estimate_tokens(), value.condensed, list(value.digests))
    if isinstance(value, Request):
        return ("request", value.event, value.messages())
    if is_dataclass(value) and not isinstance(value, type) and type(value).__module__ == "agent_core.engine.state":
        named = {f.name: getattr(value, f.name) for f in fields(value) if f.name not in LOOKUPS}
        if isinstance(value, StepState):
            named["run"] = value.run.run_id
        return (type(value).__name__, {name: shape(item) for name, item in named.items()})
    if isinstance(value, dict):
        return {key: shape(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [shape(item) for item in value]
    if isinstance(value, set):
        return sorted(value)
    return value


def sent(request: ModelRequest) -> tuple[Any, ...]:
    """What a request asks of the model (its time left aside)."""
    return (request.messages, request.stop, request.tools, request.response_format, request.extra)


LOOPING = [
    ("react", ["call", "repeat", "repeat", "repeat"], 1),
    ("json", ["repeat", "search", "repeat", "not_understood", "repeat"], 2),
    ("tools", ["two_calls", "search", "repeat", "not_understood", "not_understood", "tool_error", "search"], 1),
]
"""Runs whose repeats narrow the request (and, repeated once more, end the run), with outside content read."""


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(runs, st.lists(st.integers(min_value=1), min_size=1, max_size=4))
@example(LOOPING[0], list(range(1, 40)))
@example(LOOPING[1], list(range(1, 60)))
@example(LOOPING[2], list(range(1, 80)))
def test_the_live_loop_state_is_the_fold_of_its_events_and_a_prefix_folded_goes_on_the_same(
    drawn: Any, cuts: list[int]
) -> None:
    protocol, kinds, keep = drawn
    a = agent(protocol, script(protocol, kinds), keep)
    loop = RunLoop(a.context(), "count", run_id="r", cancel=CancelToken())
    events = list(loop.events())
    assert isinstance(events[-1], RunFinished)
    whole = shape(loop.state)
    assert shape(RunState.fold(events, window=window(a))) == whole
    for cut in {1 + c % len(events) for c in cuts}:  # cut before any event but the first (the run's start)
        state = RunState.fold(events[:cut], window=window(a))
        for event in events[cut:]:
            state.add(event)
        assert shape(state) == whole
    run = loop.state
    finished = events[-1]
    assert (finished.steps, finished.tool_calls, finished.usage) == (
        run.totals.steps,
        run.totals.tool_calls,
        run.totals.usage,
    )
    assert run.totals.tool_calls == sum(
        1 for c in run.calls if not isinstance(c, ModelFinished) and c.ran and c.finished
    )


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(runs)
@example(LOOPING[0])
@example(LOOPING[1])
@example(LOOPING[2])
def test_a_run_resumed_after_any_event_sends_what_the_uninterrupted_run_sent(drawn: Any) -> None:
    protocol, kinds, keep = drawn
    replies = script(protocol, kinds)
    live = agent(protocol, replies, keep)
    events = list(live.run("count", run_id="r"))
    asked = list(live.model.requests)  # type: ignore[attr-defined]
    ends = next(i for i, e in enumerate(events) if isinstance(e, (FinalAnswer, RunFinished)))
    for cut in range(1, ends + 1):
        resumed_as_uninterrupted(protocol, keep, replies, events, asked, cut)


def resumed_as_uninterrupted(
    protocol: str, keep: int, replies: list[str | Reply], events: list[Any], asked: list[ModelRequest], cut: int
) -> None:
    """Resume ``events`` cut before ``events[cut]`` with the rest of the script: it goes on as the run did."""
    head = events[:cut]
    live = agent(protocol, replies, keep)
    folded = RunState.fold(head, window=window(live))
    first = folded.last_complete + 1  # the step the resumed run asks the model for first
    if not any(isinstance(e, StepStarted) and e.step == first for e in events):
        return  # cut after the last step's reply: nothing is asked again
    resumed = agent(protocol, replies[first - 1 :], keep)
    rest = list(resumed.resume(head))
    assert isinstance(rest[0], RunResumed) and rest[0].from_step == first
    again = resumed.model.requests  # type: ignore[attr-defined]
    assert sent(again[0]) == sent(asked[first - 1])  # the step is asked for again with the same context
    if not (cut == len(events) or isinstance(events[cut], StepStarted)):
        return  # cut inside a step: its calls that finished are on record, and a repeat of one is answered from it
    assert [sent(r) for r in again] == [sent(r) for r in asked[first - 1 :]]
    before, after = events[-1], rest[-1]
    assert isinstance(before, RunFinished) and isinstance(after, RunFinished)
    assert (after.status, after.final_answer, after.error, after.steps, after.tool_calls, after.usage) == (
        before.status,
        before.final_answer,
        before.error,
        before.steps,
        before.tool_calls,
        before.usage,
    )
    whole = RunState.fold(events, window=window(live))
    continued = RunState.fold([*head, *(e for e in rest if not isinstance(e, RunResumed))], window=window(live))
    for part in ("totals", "repeats", "taint", "window", "narrowing", "last_complete", "format_failures"):
        assert shape(getattr(continued, part)) == shape(getattr(whole, part)), part


def test_a_restated_repeat_is_no_tool_call_live_or_resumed() -> None:
    replies = script("react", ["call", "repeat", "repeat"])
    replies[0] = react("calling", "calculator", expression="1 + 1")
    events = list(agent("react", replies, 6).run("count", run_id="r"))
    cut = next(i for i, e in enumerate(events) if isinstance(e, StepStarted) and e.step == 3)
    rest = list(agent("react", replies[2:], 6).resume(events[:cut]))
    assert events[-1].tool_calls == rest[-1].tool_calls == 1  # type: ignore[attr-defined]
