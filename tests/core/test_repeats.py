"""Repeated calls: not run again, the earlier result restated, then the request narrowed, then the run ended.

Each protocol narrows in its own way; the exact schema, ``tool_choice`` or message sent is asserted here.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

import pytest

from agent_core import Agent
from agent_core.engine.protocols.json_reply import SCHEMA_NAME, answer_schema, reply_schema
from agent_core.engine.repeats import RepeatGuard
from agent_core.engine.state import RunState
from agent_core.events import AnswerRequested, CallRepeated, Event, RunFinished, ToolFinished, ToolStarted
from agent_core.models import OpenAIChatModel
from agent_core.testing import FakeOpenAIServer, Reply, ScriptedModel
from agent_core.tools import ToolSet, builtin_tools
from agent_core.tools.runner import CallRequest
from tests.core.helpers import answer, react

jsonschema = pytest.importorskip("jsonschema")

CALC = {"expression": "17 * 23"}
NOTE = (
    'This exact call (calculator {"expression":"17 * 23"}) was already made at step 1, so it was not run again. '
    "Its result was: 391\nUse that result: give the final answer now, or take a different step."
)
ASKED = (
    'You have asked for calculator {"expression":"17 * 23"} again (2 repeated calls so far); it was made at step 1 '
    "and returned: 391\nDo not call it again.\n"
)


def view(events: Iterable[Event]) -> list[tuple[Any, ...]]:
    """The calls, repeats, narrowing and the end of a run, one short tuple each."""
    out: list[tuple[Any, ...]] = []
    for e in events:
        if isinstance(e, ToolStarted):
            out.append(("run", e.step, e.tool, e.arguments))
        elif isinstance(e, CallRepeated):
            out.append(("repeat", e.step, e.first_step, e.repeats, e.ran))
        elif isinstance(e, ToolFinished):
            out.append(("observation", e.step, e.output))
        elif isinstance(e, AnswerRequested):
            out.append(("answer_requested", e.step, e.repeats, e.narrowing))
        elif isinstance(e, RunFinished):
            out.append(("finished", e.status, e.final_answer, e.error, e.tool_calls))
    return out


def calc_replies(n: int) -> list[str]:
    return [react("multiply", "calculator", **CALC)] * n


def test_react_a_repeat_is_answered_from_the_record_then_the_answer_is_asked_for() -> None:
    model = ScriptedModel([*calc_replies(3), answer("I have it.", "391")])
    events = list(Agent(model, builtin_tools()).run("What is 17 * 23?"))
    assert view(events) == [
        ("run", 1, "calculator", CALC),
        ("observation", 1, "391"),
        ("repeat", 2, 1, 1, False),
        ("observation", 2, NOTE),
        ("repeat", 3, 1, 2, False),
        ("observation", 3, NOTE),
        ("answer_requested", 3, 2, "a correction message asks for Final Answer:"),
        ("finished", "completed", "391", None, 1),
    ]
    narrowed = model.requests[3]
    assert narrowed.messages[-2] == {"role": "user", "content": f"Observation: {NOTE}"}
    assert narrowed.messages[-1] == {
        "role": "user",
        "content": ASKED + "Do not write another Action. Reply now with a Thought and the Final Answer:\n"
        "Thought: <your reasoning>\nFinal Answer: <the answer for the user>",
    }
    assert narrowed.stop == model.requests[0].stop  # the text protocol narrows by the message alone
    model.assert_complete()


def test_react_a_model_that_still_repeats_ends_the_run_with_its_own_status() -> None:
    model = ScriptedModel([*calc_replies(4), answer("never asked", "x")])
    events = list(Agent(model, builtin_tools(), max_steps=10).run("What is 17 * 23?"))
    last = events[-1]
    assert (last.status, last.steps, last.tool_calls) == ("repeated", 4, 1)
    assert (
        last.error
        == 'the model repeated the same call 3 times (calculator {"expression":"17 * 23"}, first made at step 1)'
    )
    assert model.remaining == 1  # the remaining six steps were not spent


def test_canonical_arguments_make_a_repeat_whatever_the_key_order() -> None:
    first = 'Thought: t\nAction: date_calculator\nAction Input: {"operation": "add", "date": "2024-05-20", "days": 150}'
    again = 'Thought: t\nAction: date_calculator\nAction Input: {"days":150,"date":"2024-05-20","operation":"add"}'
    events = list(Agent(ScriptedModel([first, again, answer("ok", "Thursday")]), builtin_tools()).run("q"))
    assert [e.first_step for e in events if isinstance(e, CallRepeated)] == [1]
    assert sum(isinstance(e, ToolStarted) for e in events) == 1


def test_a_repeatable_tool_is_run_again() -> None:
    clock = react("time", "get_current_time", timezone="UTC")
    events = list(Agent(ScriptedModel([clock] * 3 + [answer("ok", "now")]), builtin_tools()).run("time?"))
    assert sum(isinstance(e, ToolStarted) for e in events) == 3
    assert not any(isinstance(e, (CallRepeated, AnswerRequested)) for e in events)


def test_policy_allow_runs_the_repeat_again_and_says_so() -> None:
    model = ScriptedModel([*calc_replies(3), answer("ok", "391")])
    events = list(Agent(model, builtin_tools(), repeat_policy="allow").run("q"))
    assert view(events) == [
        ("run", 1, "calculator", CALC),
        ("observation", 1, "391"),
        ("repeat", 2, 1, 1, True),
        ("run", 2, "calculator", CALC),
        ("observation", 2, "391"),
        ("repeat", 3, 1, 2, True),
        ("run", 3, "calculator", CALC),
        ("observation", 3, "391"),
        ("finished", "completed", "391", None, 3),
    ]


def test_policy_stop_ends_the_run_at_the_first_repeat() -> None:
    model = ScriptedModel([*calc_replies(2), answer("ok", "391")])
    events = list(Agent(model, builtin_tools(), repeat_policy="stop").run("q"))
    assert view(events)[-2:] == [
        ("repeat", 2, 1, 1, False),
        ("finished", "repeated", None, "the model repeated a call it made at step 1", 1),
    ]


def test_an_unknown_policy_is_refused_in_one_sentence() -> None:
    with pytest.raises(ValueError, match="repeat_policy must be redirect, allow or stop, not 'sometimes'"):
        Agent(ScriptedModel([]), builtin_tools(), repeat_policy="sometimes")


def json_reply(**fields: Any) -> str:
    return json.dumps(fields)


def test_json_the_narrowed_request_allows_only_a_final_answer() -> None:
    step = json_reply(action={"tool": "calculator", "arguments": CALC})
    done = json.dumps({"final_answer": "17 * 23 = 391"})
    with FakeOpenAIServer([step, step, step, done]) as server:
        model = OpenAIChatModel("fake-model", base_url=server.base_url, api_key="sk-test")
        events = list(Agent(model, builtin_tools(), protocol="json").run("What is 17 * 23?"))
    schemas = [f["json_schema"] for f in server.response_formats]  # type: ignore[index]
    assert [s["schema"] for s in schemas[:3]] == [reply_schema(builtin_tools())] * 3
    assert schemas[3] == {"name": SCHEMA_NAME, "strict": True, "schema": answer_schema()}
    assert schemas[3]["schema"] == {  # the answer alone and first: no thought for a small model to drift in
        "type": "object",
        "anyOf": [
            {
                "type": "object",
                "properties": {
                    "final_answer": {
                        "type": "string",
                        "minLength": 1,
                        "description": "The answer for the user.",
                        "maxLength": 600,
                    },
                },
                "required": ["final_answer"],
                "additionalProperties": False,
            }
        ],
    }
    with pytest.raises(jsonschema.ValidationError):  # the server cannot let another action through
        jsonschema.validate(json.loads(step), schemas[3]["schema"])
    assert server.requests[3]["messages"][-1]["content"] == ASKED + "Reply now with the final answer."
    assert ("answer_requested", 3, 2, "the reply schema allows only a final answer") in view(events)
    assert (events[-1].status, events[-1].final_answer, events[-1].tool_calls) == ("completed", "17 * 23 = 391", 1)


def test_json_after_a_failed_call_is_repeated_the_schema_offers_the_answer_or_another_tool() -> None:
    bad = {"operation": "add", "date": "2024-01-15"}  # "add" needs days: the call fails, its repeats too
    step = json_reply(action={"tool": "date_calculator", "arguments": bad})
    done = json_reply(final_answer="2024-02-14")
    tools = ToolSet([t for t in builtin_tools() if t.name in ("calculator", "date_calculator")])
    with FakeOpenAIServer([step, step, step, done]) as server:
        model = OpenAIChatModel("fake-model", base_url=server.base_url, api_key="sk-test")
        events = list(Agent(model, tools, protocol="json").run("What date is 30 days after 2024-01-15?"))
    calculator = tools.get("calculator")
    assert calculator is not None
    schema = server.response_formats[3]["json_schema"]["schema"]  # type: ignore[index]
    assert schema == reply_schema([calculator])  # the repeated tool's branch is gone; the answer stays
    assert [b["properties"].get("action", {}).get("properties", {}).get("tool") for b in schema["anyOf"]] == [
        {"type": "string", "enum": ["calculator"]},
        None,
    ]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(json.loads(step), schema)
    asked = server.requests[3]["messages"][-1]["content"]
    assert asked.endswith("\nReply now with the final answer, or call another tool: calculator.")
    narrowing = "the reply schema allows only a final answer or a call of calculator"
    assert ("answer_requested", 3, 2, narrowing) in view(events)
    assert events[-1].status == "completed"


def test_json_a_failed_repeat_with_no_other_tool_narrows_to_the_answer() -> None:
    bad = {"operation": "add", "date": "2024-01-15"}
    step = json_reply(action={"tool": "date_calculator", "arguments": bad})
    tools = ToolSet([t for t in builtin_tools() if t.name == "date_calculator"])
    with FakeOpenAIServer([step, step, step, json.dumps({"final_answer": "unknown"})]) as server:
        model = OpenAIChatModel("fake-model", base_url=server.base_url, api_key="sk-test")
        list(Agent(model, tools, protocol="json").run("What date is 30 days after 2024-01-15?"))
    assert server.response_formats[3]["json_schema"]["schema"] == answer_schema()  # type: ignore[index]


def test_native_the_narrowed_request_goes_with_tool_choice_none() -> None:
    call = Reply.call("calculator", **CALC)
    with FakeOpenAIServer([call, call, call, "17 * 23 = 391"]) as server:
        model = OpenAIChatModel("fake-model", base_url=server.base_url, api_key="sk-test")
        events = list(Agent(model, builtin_tools(), protocol="tools").run("What is 17 * 23?"))
    assert [r.get("tool_choice") for r in server.requests] == [None, None, None, "none"]
    assert server.requests[3]["tools"] == server.requests[0]["tools"]  # same tools, none may be called
    tool_messages = [m for m in server.requests[3]["messages"] if m["role"] == "tool"]
    assert [m["content"] for m in tool_messages] == ["391", NOTE, NOTE]
    assert server.requests[3]["messages"][-1] == {
        "role": "user",
        "content": ASKED + "Reply now with the final answer as plain text, without calling a tool.",
    }
    assert ("answer_requested", 3, 2, 'tool_choice "none": no tool may be called') in view(events)
    assert (events[-1].status, events[-1].final_answer) == ("completed", "17 * 23 = 391")


def test_native_a_repeat_beside_a_new_call_in_one_step() -> None:
    both = Reply(tool_calls=(("calculator", CALC), ("calculator", {"expression": "2 + 2"})))
    model = ScriptedModel([Reply.call("calculator", **CALC), both, "done"])
    events = list(Agent(model, builtin_tools(), protocol="tools").run("q"))
    assert view(events)[2:6] == [
        ("repeat", 2, 1, 1, False),
        ("observation", 2, NOTE),
        ("run", 2, "calculator", {"expression": "2 + 2"}),
        ("observation", 2, "4"),
    ]
    tool_ids = [m["tool_call_id"] for m in model.requests[2].messages if m["role"] == "tool"]
    assert tool_ids == ["call_1", "call_1", "call_2"]  # one answer per call, in call order


def test_a_guard_over_a_state_folded_from_earlier_events_keeps_counting_repeats() -> None:
    events = list(Agent(ScriptedModel([*calc_replies(3), answer("ok", "391")]), builtin_tools()).run("q"))
    state = RunState.fold(events)
    guard = RepeatGuard(ToolSet(builtin_tools()), "redirect", "r", state)
    found = state.find("calculator", CALC)
    assert state.repeats.count == 2 and found is not None and (found.step, found.output) == (1, "391")
    (repeat,) = guard.split([CallRequest("call_1", "calculator", CALC)])[1]
    assert (repeat.number, repeat.earlier) == (3, found)


@pytest.mark.parametrize("protocol", ["json", "react", "tools"])
def test_a_run_resumed_after_the_answer_request_sends_the_same_narrowed_request(protocol: str) -> None:
    calls = {
        "json": [json_reply(action={"tool": "calculator", "arguments": CALC})] * 3,
        "react": calc_replies(3),
        "tools": [Reply.call("calculator", **CALC)] * 3,
    }[protocol]
    last = {"json": json.dumps({"final_answer": "391"}), "react": answer("ok", "391"), "tools": "391"}[protocol]
    live = ScriptedModel([*calls, last])
    events = list(Agent(live, builtin_tools(), protocol=protocol).run("What is 17 * 23?"))
    asked = next(i for i, e in enumerate(events) if isinstance(e, AnswerRequested))
    resumed = ScriptedModel([last])
    rest = list(Agent(resumed, builtin_tools(), protocol=protocol).resume(events[: asked + 1]))
    before, after = live.requests[3], resumed.requests[0]
    assert after.messages == before.messages  # the answer request is rebuilt in the scratchpad
    assert after.messages[-1]["content"].startswith(ASKED)
    assert (after.response_format, after.tools, after.extra) == (before.response_format, before.tools, before.extra)
    assert (rest[-1].status, rest[-1].final_answer) == ("completed", "391")


def test_a_run_resumed_later_keeps_the_answer_request_in_its_steps() -> None:
    model = ScriptedModel([*calc_replies(3), react("add", "calculator", expression="2 + 2"), answer("ok", "391")])
    events = list(Agent(model, builtin_tools()).run("What is 17 * 23?"))
    cut = next(i for i, e in enumerate(events) if isinstance(e, ToolFinished) and e.step == 4)
    resumed = ScriptedModel([answer("ok", "391")])
    list(Agent(resumed, builtin_tools()).resume(events[: cut + 1]))
    assert resumed.requests[0].messages == model.requests[4].messages
    assert sum(m["content"].startswith(ASKED) for m in resumed.requests[0].messages) == 1


def test_json_an_unusable_reply_to_the_narrowed_request_keeps_the_narrowing() -> None:
    step = json_reply(action={"tool": "calculator", "arguments": CALC})
    cut = '{"final_answer": "391. So 391 is'  # a reply cut by max_tokens
    with FakeOpenAIServer([step, step, step, cut, json.dumps({"final_answer": "391"})]) as s:
        model = OpenAIChatModel("fake-model", base_url=s.base_url, api_key="sk-test")
        events = list(Agent(model, builtin_tools(), protocol="json").run("What is 17 * 23?"))
    schemas = [f["json_schema"]["schema"] for f in s.response_formats]  # type: ignore[index]
    assert schemas[3:] == [answer_schema(), answer_schema()]  # a cut reply: the next request is narrowed again
    assert (events[-1].status, events[-1].final_answer) == ("completed", "391")
