"""What if: a fork copies the steps before its point, applies the edit, reuses recorded tool results, goes on live."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agent_core.engine.agent import Agent
from agent_core.engine.protocols import get_protocol
from agent_core.events import ApprovalDecided, Event, ModelFinished, RunFinished, RunForked, ToolFinished, ToolStarted
from agent_core.models.chat import Completion
from agent_core.models.openai_compat import OpenAIChatModel
from agent_core.runtime.fork import StepEdit, fork_run
from agent_core.runtime.fork_edit import decision_text
from agent_core.runtime.reuse import RecordedResults
from agent_core.runtime.session_runs import run_in_session
from agent_core.store import SessionStore
from agent_core.testing import FakeOpenAIServer, Reply, ScriptedModel
from agent_core.tools import Tool, ToolSet, tool
from agent_core.tools.runner import CallRequest
from agent_core.views.transcript import Transcript


class Weather:
    """A lookup tool that counts its calls, and a sender that needs approval."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def tools(self) -> list[Tool]:
        @tool
        def lookup(city: str) -> str:
            """The weather in a city.

            Args:
                city: the city's name
            """
            self.calls.append(city)
            return {"Paris": "rain", "Rome": "sun"}.get(city, "fog")

        @tool(needs_approval=True)
        def send(to: str) -> str:
            """Send the report to someone.

            Args:
                to: who gets it
            """
            self.calls.append(f"send:{to}")
            return "sent"

        return [lookup, send]


def react(tool_name: str, **arguments: Any) -> str:
    return f"Thought: look it up\nAction: {tool_name}\nAction Input: {json.dumps(arguments)}"


def answer(text: str) -> str:
    return f"Thought: done\nFinal Answer: {text}"


def original(store: SessionStore, weather: Weather, replies: list[Any], protocol: str = "react") -> tuple[str, str]:
    session = store.sessions.create()
    agent = Agent(ScriptedModel(replies), weather.tools(), protocol=protocol, require_approval=False)
    events = list(run_in_session(store, session.id, agent, "Weather in Paris and Rome?"))
    return session.id, events[0].run_id


def fork(store: SessionStore, sid: str, rid: str, step: int, weather: Weather, replies: list[Any], **kw: Any):
    protocol = kw.pop("protocol", "react")
    model = ScriptedModel(replies)
    # A call the copied steps already made is, by default, a repeat (not run, its result restated: see
    # test_repeats); with "allow" it reaches the runner, where the fork's reuse of recorded results answers it.
    policy = kw.pop("repeat_policy", "allow")
    agent = Agent(model, weather.tools(), protocol=protocol, require_approval=False, repeat_policy=policy)
    info, events = fork_run(store, sid, rid, step, agent, **kw)
    return info, list(events), model


def finished(events: list[Event]) -> list[ToolFinished]:
    return [e for e in events if isinstance(e, ToolFinished)]


def test_an_edited_observation_continues_live_and_reuses_the_recorded_call_of_step_1() -> None:
    store, weather = SessionStore.open("sqlite://"), Weather()
    sid, rid = original(store, weather, [react("lookup", city="Paris"), react("lookup", city="Rome"), answer("wet")])
    before = store.log.events(sid)
    info, events, model = fork(
        store,
        sid,
        rid,
        2,
        weather,
        [react("lookup", city="Paris"), answer("snowy Rome")],
        edit=StepEdit("observation", text="snow"),
    )
    assert weather.calls == ["Paris", "Rome"]  # the branch's Paris call was not made again
    assert store.log.events(sid) == before  # the original is never written to
    assert info.parent_id == sid and info.title.endswith("at step 2 (edited observation)")
    marker = next(e for e in events if isinstance(e, RunForked))
    assert (marker.from_session, marker.from_run, marker.at_step) == (sid, rid, 2)
    outputs = [(e.step, e.output, e.reused_from) for e in finished(events)]
    assert outputs[:2] == [(1, "rain", None), (2, "snow", None)]
    assert outputs[2][:2] == (3, "rain") and outputs[2][2] == {
        "session": sid,
        "run": rid,
        "step": 1,
        "call_id": "call_1",
    }
    assert len(model.requests) == 2  # steps 3 and 4 only
    assert "Observation: snow" in str(model.requests[0].messages)
    assert events[-1].status == "completed" and events[-1].final_answer == "snowy Rome"  # type: ignore[attr-defined]
    turn = Transcript.from_events(store.log.events(info.id)).turns[-1]
    assert turn.forked == marker and [s.number for s in turn.steps] == [1, 2, 3, 4]


def test_different_arguments_call_the_tool_and_no_reuse_turns_it_off() -> None:
    store, weather = SessionStore.open("sqlite://"), Weather()
    sid, rid = original(store, weather, [react("lookup", city="Paris"), answer("wet")])
    _, events, _ = fork(
        store,
        sid,
        rid,
        1,
        weather,
        [react("lookup", city="Paris"), answer("x")],
        edit=StepEdit("action", tool="lookup", arguments={"city": "Oslo"}),
    )
    assert weather.calls == ["Paris", "Oslo"]  # Oslo is new: called; Paris again at step 2: reused
    assert [(e.step, e.tool, bool(e.reused_from)) for e in finished(events)] == [
        (1, "lookup", False),
        (2, "lookup", True),
    ]
    _, events, _ = fork(store, sid, rid, 1, weather, [answer("x")], reuse=False)
    assert weather.calls == ["Paris", "Oslo"]  # step 1 re-asked: the model answered at once
    _, events, _ = fork(store, sid, rid, 1, weather, [react("lookup", city="Paris"), answer("x")], reuse=False)
    assert weather.calls[-1] == "Paris" and not any(e.reused_from for e in finished(events))
    _, events, _ = fork(
        store, sid, rid, 1, weather, [react("lookup", city="Paris"), answer("x")], no_reuse_tools=["lookup"]
    )
    assert weather.calls.count("Paris") == 3


def test_a_tool_that_needs_approval_is_never_replayed_silently() -> None:
    store, weather = SessionStore.open("sqlite://"), Weather()
    sid, rid = original(store, weather, [react("send", to="boss"), answer("sent")])
    _, events, _ = fork(store, sid, rid, 1, weather, [react("send", to="boss"), answer("sent again")])
    assert weather.calls == ["send:boss", "send:boss"]
    assert any(isinstance(e, ApprovalDecided) for e in events) and not any(e.reused_from for e in finished(events))


def test_an_edited_action_runs_with_its_arguments_and_reuses_what_any_step_recorded() -> None:
    store, weather = SessionStore.open("sqlite://"), Weather()
    sid, rid = original(store, weather, [react("lookup", city="Paris"), react("lookup", city="Rome"), answer("x")])
    _, events, model = fork(
        store,
        sid,
        rid,
        1,
        weather,
        [answer("sunny")],
        edit=StepEdit("action", tool="lookup", arguments={"city": "Rome"}),
    )
    first = finished(events)[0]
    assert (first.output, first.reused_from["step"]) == ("sun", 2)  # type: ignore[index]
    assert weather.calls == ["Paris", "Rome"] and len(model.requests) == 1
    step1 = next(e for e in events if isinstance(e, ModelFinished))
    assert 'Action Input: {"city": "Rome"}' in step1.text


def test_an_edited_answer_ends_the_branch_without_asking_the_model() -> None:
    store, weather = SessionStore.open("sqlite://"), Weather()
    sid, rid = original(store, weather, [react("lookup", city="Paris"), answer("wet")])
    _, events, model = fork(store, sid, rid, 2, weather, [], edit=StepEdit("answer", text="dry"))
    assert not model.requests and events[-1].final_answer == "dry"  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="there is no step 5"):
        fork(store, sid, rid, 5, weather, [])


def test_a_final_answer_turned_back_into_an_action() -> None:
    store, weather = SessionStore.open("sqlite://"), Weather()
    sid, rid = original(store, weather, [answer("no idea")])
    _, events, _ = fork(
        store, sid, rid, 1, weather, [answer("fog")], edit=StepEdit("action", tool="lookup", arguments={"city": "Oslo"})
    )
    assert [e.output for e in finished(events)] == ["fog"] and events[-1].final_answer == "fog"  # type: ignore[attr-defined]


def test_a_parallel_call_is_edited_alone() -> None:
    store, weather = SessionStore.open("sqlite://"), Weather()
    both = Reply(tool_calls=(("lookup", {"city": "Paris"}), ("lookup", {"city": "Rome"})))
    sid, rid = original(store, weather, [both, "rain and sun"], protocol="tools")
    _, events, model = fork(
        store,
        sid,
        rid,
        1,
        weather,
        ["rain and snow"],
        protocol="tools",
        edit=StepEdit("observation", text="snow", call_id="call_2"),
    )
    assert [(e.call_id, e.output) for e in finished(events)] == [("call_1", "rain"), ("call_2", "snow")]
    tool_messages = [m for m in model.requests[0].messages if m["role"] == "tool"]
    assert [(m["tool_call_id"], m["content"]) for m in tool_messages] == [("call_1", "rain"), ("call_2", "snow")]
    assert weather.calls == ["Paris", "Rome"]


REPLIES = {
    "react": (react("lookup", city="Paris"), react("lookup", city="Rome"), answer("ok")),
    "tools": (Reply.call("lookup", city="Paris"), Reply.call("lookup", city="Rome"), "ok"),
    "json": tuple(
        json.dumps(r)
        for r in (
            {"thought": "t", "action": {"tool": "lookup", "arguments": {"city": "Paris"}}},
            {"thought": "t", "action": {"tool": "lookup", "arguments": {"city": "Rome"}}},
            {"thought": "t", "final_answer": "ok"},
        )
    ),
}


@pytest.mark.parametrize("protocol", ["react", "tools", "json"])
def test_no_model_call_before_the_fork_point_is_sent_again(protocol: str) -> None:
    store, weather = SessionStore.open("sqlite://"), Weather()
    first, second, last = REPLIES[protocol]
    with FakeOpenAIServer([first, second, last, first, last]) as server:
        model = OpenAIChatModel("fake-model", base_url=server.base_url, api_key="sk-test")
        session = store.sessions.create()
        agent = Agent(model, weather.tools(), protocol=protocol)
        ran = list(run_in_session(store, session.id, agent, "Weather?"))
        rid = ran[0].run_id
        assert len(server.requests) == 3
        branch = Agent(model, weather.tools(), protocol=protocol, repeat_policy="allow")  # see fork()
        _, events = fork_run(store, session.id, rid, 2, branch, edit=StepEdit("observation", text="snow"))
        events = list(events)
        assert len(server.requests) == 5  # steps 3 and 4 of the branch, nothing before
    assert "snow" in json.dumps(server.requests[3]["messages"])
    assert weather.calls == ["Paris", "Rome"]  # step 3 asked for Paris again: reused
    assert [e.reused_from["step"] for e in finished(events) if e.reused_from] == [1]  # type: ignore[index]
    assert isinstance(events[-1], RunFinished) and events[-1].status == "completed"


def test_the_memory_writer_and_trusted_tools_with_effects_are_never_reused() -> None:
    @tool
    def remember(text: str) -> str:
        """Store a fact.

        Args:
            text: the fact
        """
        return "stored"

    weather = Weather()
    tools = ToolSet([*weather.tools(), remember])
    recorded: list[Event] = []
    for step, (name, arguments) in enumerate(
        [("remember", {"text": "x"}), ("send", {"to": "a"}), ("lookup", {"city": "Rome"})], 1
    ):
        recorded.append(ToolStarted(run_id="r", step=step, call_id="c", tool=name, arguments=arguments))
        recorded.append(ToolFinished(run_id="r", step=step, call_id="c", tool=name, output="done"))
    results = RecordedResults(recorded, session_id="s", run_id="r")
    calls = [CallRequest("a", "remember", {"text": "x"}), CallRequest("b", "send", {"to": "a"})]
    calls += [CallRequest("c", "lookup", {"city": "Rome"}), CallRequest("d", "lookup", {"city": " Rome"})]
    trusted = {"remember": False, "send": False}  # trusted: they would not ask, yet they still run again
    reused = results.reused("branch", 4, calls, tools, trusted)
    assert list(reused) == ["c"] and reused["c"].reused_from == {"session": "s", "run": "r", "step": 3, "call_id": "c"}
    assert RecordedResults(recorded, session_id="s", run_id="r", skip=["lookup"]).reused("b", 4, calls, tools, {}) == {}


@pytest.mark.parametrize("protocol", ["react", "json"])
def test_an_edited_decision_reads_back_as_the_same_decision(protocol: str) -> None:
    tools = ToolSet(Weather().tools())
    calls = ({"id": "call_1", "name": "lookup", "arguments": '{"city": "Oslo"}'},)
    action = get_protocol(protocol).interpret(Completion(text=decision_text(protocol, "Check.", calls, None)), tools)
    assert (action.thought, [(c.name, c.arguments) for c in action.calls]) == ("Check.", [("lookup", {"city": "Oslo"})])
    done = get_protocol(protocol).interpret(Completion(text=decision_text(protocol, "Done.", (), "dry")), tools)
    assert (done.thought, done.final_answer) == ("Done.", "dry")
