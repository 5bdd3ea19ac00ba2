"""The loop with the ReAct text protocol: happy paths, limits and every recovery path."""

from __future__ import annotations

import threading
import time

import pytest

from agent_core import Agent, CancelToken, ModelError
from agent_core.events import ModelDelta, ModelFinished, RunFinished, ToolFinished, event_from_dict
from agent_core.testing import Reply, ScriptedModel
from agent_core.tools import builtin_tools
from tests.core.helpers import answer, boom, long_text, react, simplify, sleepy

Q = "What weekday is 150 days after 2024-05-20?"


def run(model: ScriptedModel, question: str = Q, tools=None, **settings) -> list:
    agent = Agent(model, builtin_tools() if tools is None else tools, **settings)
    return list(agent.run(question))


def test_the_seed_question_is_answered_exactly() -> None:
    model = ScriptedModel(
        [
            react("I need date arithmetic.", "date_calculator", operation="add", date="2024-05-20", days=150),
            answer("The tool says Thursday.", "150 days after 2024-05-20 is 2024-10-17, a Thursday."),
        ]
    )
    events = run(model)
    assert simplify(events) == [
        ("run_started", Q),
        ("step", 1),
        (
            "model",
            "I need date arithmetic.",
            [("date_calculator", {"operation": "add", "date": "2024-05-20", "days": 150})],
        ),
        ("tool", "date_calculator", {"operation": "add", "date": "2024-05-20", "days": 150}),
        ("observation", "2024-05-20 (Monday) + 150 days = 2024-10-17 (Thursday)", None),
        ("step", 2),
        ("model", "The tool says Thursday.", "150 days after 2024-05-20 is 2024-10-17, a Thursday."),
        ("answer", "150 days after 2024-05-20 is 2024-10-17, a Thursday."),
        ("finished", "completed", "150 days after 2024-05-20 is 2024-10-17, a Thursday.", None),
    ]
    model.assert_complete()
    # The observation reaches the model as the next message, after its own (cut) text.
    second = model.requests[1].messages
    assert second[-2]["role"] == "assistant" and second[-2]["content"].startswith("Thought: I need date arithmetic.")
    assert second[-1] == {
        "role": "user",
        "content": "Observation: 2024-05-20 (Monday) + 150 days = 2024-10-17 (Thursday)",
    }


def test_prompt_lists_tools_with_schemas_format_and_example_and_stops_at_observation() -> None:
    model = ScriptedModel([answer("t", "ok")])
    run(model)
    request = model.requests[0]
    system = request.messages[0]["content"]
    assert request.messages[0]["role"] == "system"
    for expected in (
        '- date_calculator(operation: "add"|"subtract"|"difference"|"weekday", date: string',
        "Final Answer:",
    ):
        assert expected in system
    assert "Example:" in system and 'Action Input: {"expression": "0.17 * 2340"}' in system
    assert request.stop == ["\nObservation:", "Observation:", "Observation："]
    assert request.temperature == 0.0
    assert request.messages[-1] == {"role": "user", "content": Q}


def test_streamed_deltas_add_up_to_the_text() -> None:
    events = run(ScriptedModel([answer("t", "forty two")]))
    deltas = "".join(e.text for e in events if isinstance(e, ModelDelta))
    assert deltas == "Thought: t\nFinal Answer: forty two"


def test_hallucinated_observation_is_never_trusted() -> None:
    model = ScriptedModel(
        [
            react("compute", "calculator", expression="6*7") + "\nObservation: 41\nThought: done\nFinal Answer: 41",
            answer("real result", "42"),
        ]
    )
    events = run(model, "6*7?")
    assert [e.output for e in events if isinstance(e, ToolFinished)] == ["42"]
    shown = "".join(e.text for e in events if isinstance(e, ModelDelta) and e.step == 1)
    assert "Observation" not in shown and "41" not in shown
    finished = next(e for e in events if isinstance(e, ModelFinished))
    # The raw text is kept for the inspector, up to where the loop stopped reading the stream.
    assert finished.text.rstrip().endswith("Observation:") and "41" not in finished.text
    assert finished.finish_reason == "stop_at_observation"
    assert "41" not in model.requests[1].messages[-2]["content"]
    assert events[-1].final_answer == "42"


def test_max_steps_stops_a_loop_that_never_answers() -> None:
    model = ScriptedModel([react("again", "calculator", expression=f"{i}+1") for i in range(3)])  # never a repeat
    events = run(model, "loop forever", max_steps=3)
    last = events[-1]
    assert (last.status, last.steps, last.tool_calls, last.final_answer) == ("max_steps", 3, 3, None)
    assert last.error == "no final answer after 3 steps"
    model.assert_complete()


def test_time_limit_ends_the_run_with_timeout() -> None:
    model = ScriptedModel([Reply(react("slow", "calculator", expression="1"), delay=0.3)] * 5)
    started = time.perf_counter()
    events = run(model, "slow", time_limit=0.5)
    assert events[-1].status == "timeout"
    assert events[-1].error == "time limit of 0.5 s reached"
    assert time.perf_counter() - started < 1.5


def test_tool_timeout_becomes_an_observation_and_the_run_goes_on() -> None:
    model = ScriptedModel([react("nap", "sleepy", seconds=5), answer("it hung", "The tool timed out.")])
    started = time.perf_counter()
    events = run(model, "sleep", tools=[sleepy], tool_timeout=0.2)
    assert time.perf_counter() - started < 2
    assert simplify(events)[4] == (
        "observation",
        "Error: sleepy timed out after 0.2 s; try something else.",
        "sleepy timed out after 0.2 s",
    )
    assert events[-1].status == "completed"


def test_unknown_tool_lists_the_valid_tools() -> None:
    model = ScriptedModel([react("search", "search_web", query="weather"), answer("no search", "I cannot search.")])
    events = run(model, "weather?")
    assert simplify(events)[4] == (
        "observation",
        "Error: unknown tool 'search_web'. Valid tools: calculator, get_current_time, date_calculator.",
        "unknown tool",
    )
    assert model.requests[1].messages[-1]["content"].startswith("Observation: Error: unknown tool 'search_web'")


def test_invalid_arguments_return_the_validation_message() -> None:
    model = ScriptedModel(
        [react("oops", "date_calculator", operation="add", when="2024-05-20"), answer("fixing", "sorry")]
    )
    events = run(model)
    output, error = simplify(events)[4][1:]
    assert output == (
        "Error: invalid arguments for date_calculator: missing required argument 'date'; unexpected argument 'when'. "
        "Expected parameters: {operation: string, date: string, days?: integer|null, other_date?: string|null}."
    )
    assert (
        error == "invalid arguments for date_calculator: missing required argument 'date'; unexpected argument 'when'"
    )


def test_tool_exception_becomes_an_error_observation() -> None:
    model = ScriptedModel([react("try", "boom", reason="disk full"), answer("failed", "The tool failed.")])
    events = run(model, "x", tools=[boom])
    assert simplify(events)[4] == (
        "observation",
        "Error: boom raised ValueError: disk full",
        "boom raised ValueError: disk full",
    )
    assert events[-1].status == "completed"


def test_tool_error_message_is_used_as_is() -> None:
    model = ScriptedModel([react("calc", "calculator", expression="1/0"), answer("oops", "undefined")])
    events = run(model, "1/0")
    assert simplify(events)[4] == ("observation", "Error: calculator: division by zero", "calculator: division by zero")


def test_two_format_errors_are_corrected_then_the_run_completes() -> None:
    model = ScriptedModel(["I think it is 42.", "Still 42!", answer("fine", "42")])
    events = run(model, "6*7?")
    assert [s for s in simplify(events) if s[0] in ("model", "finished")] == [
        ("model", "I think it is 42.", "the reply has neither an 'Action:' nor a 'Final Answer:' line"),
        ("model", "Still 42!", "the reply has neither an 'Action:' nor a 'Final Answer:' line"),
        ("model", "fine", "42"),
        ("finished", "completed", "42", None),
    ]
    correction = model.requests[1].messages[-1]
    assert correction["role"] == "user"
    assert correction["content"].startswith(
        "Your last reply could not be used: the reply has neither an 'Action:' nor a 'Final Answer:' line."
    )
    assert "Final Answer: <the answer>" in correction["content"]
    assert "Valid tool names: calculator, get_current_time, date_calculator." in correction["content"]


def test_third_consecutive_format_error_ends_the_run() -> None:
    model = ScriptedModel(["nope", "nope", "nope", answer("never", "unused")])
    events = run(model, "x")
    last = events[-1]
    assert (last.status, last.steps) == ("format_error", 3)
    assert last.error == (
        "the model replied in an unusable format 3 times in a row "
        "(last problem: the reply has neither an 'Action:' nor a 'Final Answer:' line)"
    )
    assert model.remaining == 1


def test_format_error_counter_resets_after_a_good_step() -> None:
    replies = ["bad", "bad", react("ok", "calculator", expression="2"), "bad", "bad", answer("done", "2")]
    events = run(ScriptedModel(replies), "x")
    assert events[-1].status == "completed"


def test_model_failure_is_recorded_and_ends_the_run_with_error() -> None:
    model = ScriptedModel([ModelError("auth", "http://x rejected the API key (401). Check OPENAI_API_KEY.")])
    events = run(model, "x")
    assert simplify(events) == [
        ("run_started", "x"),
        ("step", 1),
        ("model", "", "http://x rejected the API key (401). Check OPENAI_API_KEY."),
        ("finished", "error", None, "http://x rejected the API key (401). Check OPENAI_API_KEY."),
    ]


def test_cancel_between_steps() -> None:
    model = ScriptedModel([react("a", "calculator", expression="1"), answer("b", "1")])
    cancel = CancelToken()
    events = []
    for event in Agent(model).run("x", cancel=cancel):
        events.append(event)
        if isinstance(event, ToolFinished):
            cancel.cancel()
    assert events[-1].status == "cancelled" and events[-1].error == "cancelled by the user"
    assert model.remaining == 1


def test_cancel_while_streaming_stops_quickly_and_records_the_step() -> None:
    model = ScriptedModel([Reply("Thought: " + "word " * 200 + "\nFinal Answer: x", chunk_delay=0.05)])
    cancel = CancelToken()
    threading.Timer(0.2, cancel.cancel).start()
    started = time.perf_counter()
    events = list(Agent(model).run("x", cancel=cancel))
    assert time.perf_counter() - started < 1.0
    finished = [e for e in events if isinstance(e, ModelFinished)]
    assert len(finished) == 1 and finished[0].error is not None and "cancelled" in finished[0].error
    assert events[-1].status == "cancelled"


def test_cancel_while_a_tool_runs() -> None:
    model = ScriptedModel([react("nap", "sleepy", seconds=3), answer("x", "x")])
    cancel = CancelToken()
    threading.Timer(0.2, cancel.cancel).start()
    started = time.perf_counter()
    events = list(Agent(model, [sleepy]).run("x", cancel=cancel))
    assert time.perf_counter() - started < 1.0
    assert simplify(events)[-2:] == [
        ("observation", "Error: cancelled while sleepy was running", "cancelled while sleepy was running"),
        ("finished", "cancelled", None, "cancelled by the user"),
    ]


def test_long_tool_output_is_truncated_with_a_note() -> None:
    model = ScriptedModel([react("get", "long_text", size=5000), answer("ok", "done")])
    events = run(model, "x", tools=[long_text])
    result = next(e for e in events if isinstance(e, ToolFinished))
    assert result.truncated is True
    assert result.output == "x" * 2000 + "\n[truncated: 3,000 more characters not shown]"


def test_estimated_usage_is_marked_and_summed() -> None:
    events = run(ScriptedModel([react("a", "calculator", expression="1"), answer("b", "1")]), "x")
    finished = [e for e in events if isinstance(e, ModelFinished)]
    assert all(e.usage.estimated and e.usage.prompt_tokens > 0 for e in finished)
    assert events[-1].usage.prompt_tokens == sum(e.usage.prompt_tokens for e in finished)
    assert events[-1].usage.estimated is True


def test_reported_usage_is_not_estimated() -> None:
    events = run(ScriptedModel([Reply(answer("b", "1"), usage=(120, 7))]), "x")
    assert (events[-1].usage.prompt_tokens, events[-1].usage.completion_tokens, events[-1].usage.estimated) == (
        120,
        7,
        False,
    )


@pytest.mark.parametrize(
    "replies",
    [
        [answer("a", "b")],
        ["bad", "bad", "bad"],
        [react("x", "calculator", expression="1")] * 2,
        [ModelError("timeout", "timed out")],
        [react("x", "nope"), answer("a", "b")],
    ],
)
def test_every_run_ends_with_exactly_one_run_finished(replies: list) -> None:
    events = run(ScriptedModel(replies), "x", max_steps=2)
    assert sum(isinstance(e, RunFinished) for e in events) == 1
    assert isinstance(events[-1], RunFinished)


def test_every_event_round_trips_through_json() -> None:
    import json

    model = ScriptedModel(
        [
            "bad",
            Reply(react("t", "date_calculator", operation="add", date="2024-05-20", days=1), reasoning="hmm"),
            answer("t", "ok"),
        ]
    )
    for event in run(model):
        assert event_from_dict(json.loads(json.dumps(event.to_dict()))) == event
