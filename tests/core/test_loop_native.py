"""The loop with native tool calling: parallel calls, ordering, reasoning as the thought."""

from __future__ import annotations

import time

from agent_core import Agent
from agent_core.events import ModelDelta, ModelFinished, ToolFinished
from agent_core.testing import Reply, ScriptedModel
from agent_core.tools import builtin_tools
from tests.core.helpers import simplify, sleepy


def run(model: ScriptedModel, question: str, tools=None, **settings) -> list:
    return list(Agent(model, builtin_tools() if tools is None else tools, protocol="tools", **settings).run(question))


def test_native_tool_call_then_text_answer() -> None:
    model = ScriptedModel(
        [
            Reply.call("date_calculator", "Let me compute the date.", operation="add", date="2024-05-20", days=150),
            "It is Thursday, 2024-10-17.",
        ]
    )
    events = run(model, "150 days after 2024-05-20?")
    assert simplify(events) == [
        ("run_started", "150 days after 2024-05-20?"),
        ("step", 1),
        (
            "model",
            "Let me compute the date.",
            [("date_calculator", {"operation": "add", "date": "2024-05-20", "days": 150})],
        ),
        ("tool", "date_calculator", {"operation": "add", "date": "2024-05-20", "days": 150}),
        ("observation", "2024-05-20 (Monday) + 150 days = 2024-10-17 (Thursday)", None),
        ("step", 2),
        ("model", "", "It is Thursday, 2024-10-17."),
        ("answer", "It is Thursday, 2024-10-17."),
        ("finished", "completed", "It is Thursday, 2024-10-17.", None),
    ]
    first, second = model.requests
    assert [t["function"]["name"] for t in first.tools] == ["calculator", "get_current_time", "date_calculator"]
    assert first.stop is None
    assert second.messages[-2] == {
        "role": "assistant",
        "content": "Let me compute the date.",
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {
                    "name": "date_calculator",
                    "arguments": '{"operation": "add", "date": "2024-05-20", "days": 150}',
                },
            }
        ],
    }
    assert second.messages[-1] == {
        "role": "tool",
        "tool_call_id": "call_1",
        "content": "2024-05-20 (Monday) + 150 days = 2024-10-17 (Thursday)",
    }


def test_parallel_calls_run_concurrently_and_return_in_order() -> None:
    calls = (("sleepy", {"seconds": 0.4}), ("sleepy", {"seconds": 0.1}), ("sleepy", {"seconds": 0.3}))
    model = ScriptedModel([Reply(tool_calls=calls), "done"])
    started = time.perf_counter()
    events = run(model, "nap three times", tools=[sleepy])
    elapsed = time.perf_counter() - started
    assert elapsed < 0.7, f"calls ran one after another ({elapsed:.2f} s)"
    results = [e for e in events if isinstance(e, ToolFinished)]
    assert [(r.call_id, r.output) for r in results] == [
        ("call_1", "slept 0.4"),
        ("call_2", "slept 0.1"),
        ("call_3", "slept 0.3"),
    ]
    assert [m["tool_call_id"] for m in model.requests[1].messages if m["role"] == "tool"] == [
        "call_1",
        "call_2",
        "call_3",
    ]


def test_reasoning_is_streamed_and_becomes_the_thought() -> None:
    model = ScriptedModel([Reply(tool_calls=(("calculator", {"expression": "6*7"}),), reasoning="Need 6*7."), "42"])
    events = run(model, "6*7?")
    assert [e.text for e in events if isinstance(e, ModelDelta) and e.channel == "reasoning"] == ["Need 6*7."]
    assert next(e for e in events if isinstance(e, ModelFinished)).thought == "Need 6*7."


def test_invalid_json_arguments_become_an_error_observation() -> None:
    model = ScriptedModel([Reply(tool_calls=(("calculator", '{"expression": '),)), "sorry"])
    events = run(model, "x")
    assert simplify(events)[4] == (
        "observation",
        "Error: the arguments for calculator are not valid JSON (Expecting value)",
        "the arguments for calculator are not valid JSON (Expecting value)",
    )


def test_non_object_arguments_map_onto_a_single_parameter() -> None:
    model = ScriptedModel([Reply(tool_calls=(("calculator", '"2+2"'),)), "4"])
    assert simplify(run(model, "x"))[4] == ("observation", "4", None)


def test_empty_reply_is_a_format_error_with_a_correction() -> None:
    model = ScriptedModel(["", "fine"])
    events = run(model, "x")
    assert simplify(events)[2] == ("model", "", "the reply has neither text nor a tool call")
    assert (
        model.requests[1]
        .messages[-1]["content"]
        .startswith("Your last reply could not be used: the reply has neither text nor a tool call.")
    )
    assert events[-1].status == "completed"


def test_unknown_tool_in_a_parallel_batch_does_not_stop_the_others() -> None:
    model = ScriptedModel([Reply(tool_calls=(("nope", {}), ("calculator", {"expression": "1+1"}))), "2"])
    outputs = [s for s in simplify(run(model, "x")) if s[0] == "observation"]
    assert outputs == [
        (
            "observation",
            "Error: unknown tool 'nope'. Valid tools: calculator, get_current_time, date_calculator.",
            "unknown tool",
        ),
        ("observation", "2", None),
    ]
