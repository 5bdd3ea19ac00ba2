"""Protocol ``json``: the schema sent accepts exactly the legal replies, and the loop runs end to end."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from agent_core import Agent
from agent_core.engine.protocols import PROTOCOLS, JsonSchemaProtocol
from agent_core.engine.protocols.json_reply import (
    ARGUMENT_CHARS,
    SCHEMA_NAME,
    partial_answer,
    read_reply,
    reply_schema,
)
from agent_core.models import OpenAIChatModel
from agent_core.models.chat import Completion
from agent_core.testing import FakeOpenAIServer, ScriptedModel
from agent_core.tools import ToolSet, builtin_tools, tool
from agent_core.trace_export import build_spans
from tests.core.helpers import simplify
from tests.core.test_cli import sparrow

jsonschema = pytest.importorskip("jsonschema")


class Point(BaseModel):
    """A point on a grid."""

    x: int
    y: int


@tool
def distance(a: Point, b: Point) -> str:
    """Manhattan distance between two grid points.

    Args:
        a: The first point.
        b: The second point.
    """
    return str(abs(a.x - b.x) + abs(a.y - b.y))


TOOLS = [*builtin_tools(), distance]
SCHEMA = reply_schema(TOOLS)
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)
BY_NAME = {t.name: t for t in TOOLS}

texts = st.text(min_size=1, max_size=40).filter(str.strip)
points = st.fixed_dictionaries({"x": st.integers(), "y": st.integers()})


def optional(**fields: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    """Dicts holding any subset of ``fields``."""
    return st.fixed_dictionaries({}, optional=fields)


ARGUMENTS: dict[str, st.SearchStrategy[dict[str, Any]]] = {
    "calculator": st.fixed_dictionaries({"expression": st.text(max_size=30)}),
    "get_current_time": st.fixed_dictionaries({"timezone": st.none() | st.text(max_size=20)}),
    "date_calculator": st.fixed_dictionaries(
        {
            "operation": st.sampled_from(["add", "subtract", "difference", "weekday"]),
            "date": st.text(max_size=12),
            "days": st.none() | st.integers(),
            "other_date": st.none() | st.text(max_size=12),
        }
    ),
    "distance": st.fixed_dictionaries({"a": points, "b": points}),
}
"""Legal arguments of every tool in TOOLS, written by hand from their signatures (a parameter that may be null is
written, null or a value: the reply schema requires it)."""


@st.composite
def actions(draw: st.DrawFn) -> dict[str, Any]:
    """A legal action reply for one of the tools."""
    name = draw(st.sampled_from(sorted(ARGUMENTS)))
    return {"action": {"tool": name, "arguments": draw(ARGUMENTS[name])}}


answers = st.builds(lambda a: {"final_answer": a}, texts)
legal = actions() | answers


def test_the_schema_is_a_valid_json_schema_covering_every_tool() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    names = [b["properties"]["action"]["properties"]["tool"]["enum"] for b in SCHEMA["anyOf"][:-1]]
    assert names == [[t.name] for t in TOOLS] and set(ARGUMENTS) == set(BY_NAME)
    assert set(SCHEMA["$defs"]) == {"distance__Point"}  # the tool's own $defs, hoisted to the root


def test_the_date_tool_branch_exactly_nullable_parameters_required_strings_bounded() -> None:
    branch = SCHEMA["anyOf"][2]
    date = BY_NAME["date_calculator"].parameters["properties"]
    assert branch == {
        "type": "object",
        "properties": {
            "action": {
                "type": "object",
                "properties": {
                    "tool": {"type": "string", "enum": ["date_calculator"]},
                    "arguments": {
                        "additionalProperties": False,
                        "properties": {
                            "operation": date["operation"],
                            "date": {**date["date"], "maxLength": ARGUMENT_CHARS},
                            "days": date["days"],
                            "other_date": {
                                **date["other_date"],
                                "anyOf": [{"type": "string", "maxLength": ARGUMENT_CHARS}, {"type": "null"}],
                            },
                        },
                        "required": ["operation", "date", "days", "other_date"],
                        "type": "object",
                    },
                },
                "required": ["tool", "arguments"],
                "additionalProperties": False,
            }
        },
        "required": ["action"],
        "additionalProperties": False,
    }
    assert BY_NAME["date_calculator"].parameters["required"] == ["operation", "date"]  # the tool's own is unchanged
    assert SCHEMA["anyOf"][-1] == {
        "type": "object",
        "properties": {"final_answer": {"type": "string", "minLength": 1, "description": "The answer for the user."}},
        "required": ["final_answer"],
        "additionalProperties": False,
    }


def test_a_string_argument_longer_than_the_bound_or_a_skipped_nullable_one_is_refused() -> None:
    call = {"tool": "calculator", "arguments": {"expression": "1 + " * 50 + "1"}}
    assert not VALIDATOR.is_valid({"action": call}) and len(call["arguments"]["expression"]) == ARGUMENT_CHARS + 1
    call["arguments"]["expression"] = "1 + 1"
    assert VALIDATOR.is_valid({"action": call})
    skipped = {"tool": "date_calculator", "arguments": {"operation": "weekday", "date": "2024-05-20"}}
    assert not VALIDATOR.is_valid({"action": skipped})
    written = {**skipped["arguments"], "days": None, "other_date": None}
    assert VALIDATOR.is_valid({"action": {**skipped, "arguments": written}})


ODD_NAMES = SimpleNamespace(
    name="tag",
    parameters={
        "type": "object",
        "properties": {
            "type": {"type": "string"},
            "properties": {"oneOf": [{"type": "integer"}, {"type": "null"}]},
            "labels": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}},
        },
        "required": ["type"],
    },
)
"""Parameters named like JSON Schema keywords: names, never read as keywords."""


def test_parameters_named_like_keywords_are_steered_as_parameters() -> None:
    arguments = reply_schema([ODD_NAMES])["anyOf"][0]["properties"]["action"]["properties"]["arguments"]  # type: ignore[list-item]
    assert arguments == {
        "type": "object",
        "properties": {
            "type": {"type": "string", "maxLength": ARGUMENT_CHARS},
            "properties": {"oneOf": [{"type": "integer"}, {"type": "null"}]},
            "labels": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}},
        },
        "required": ["type", "properties"],
    }


MCP_STYLE = SimpleNamespace(
    name="draw_line",
    parameters={
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {"start": {"$ref": "#/definitions/point"}, "end": {"$ref": "#/properties/start"}},
        "required": ["start", "end"],
        "additionalProperties": False,
        "definitions": {"point": {"type": "object", "properties": {"x": {"type": "number"}}, "required": ["x"]}},
    },
)
"""A draft-07 schema as MCP servers send them: ``$schema``, ``definitions`` and a reference into itself."""


def test_a_tool_schema_with_its_own_references_still_validates_inside_the_reply_schema() -> None:
    schema = reply_schema([*TOOLS[:1], MCP_STYLE])  # type: ignore[list-item]
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    line = {"action": {"tool": "draw_line", "arguments": {"start": {"x": 1}, "end": {"x": 2}}}}
    assert validator.is_valid(line)
    line["action"]["arguments"]["end"] = {"x": "far"}
    assert not validator.is_valid(line)
    assert "$schema" not in json.dumps(schema["anyOf"][1])


@settings(max_examples=300, deadline=None)
@given(legal)
def test_every_legal_reply_is_accepted_and_read_back(reply: dict[str, Any]) -> None:
    VALIDATOR.validate(reply)
    read = read_reply(json.dumps(reply))
    if "action" in reply:
        action = reply["action"]
        assert (read.tool, read.arguments, read.problem) == (action["tool"], action["arguments"], None)
        BY_NAME[action["tool"]].validate(action["arguments"])  # the tool itself agrees they are valid
    else:
        assert (read.final_answer, read.problem) == (reply["final_answer"].strip(), None)


BAD_ARGUMENTS: dict[str, st.SearchStrategy[dict[str, Any]]] = {
    "calculator": st.fixed_dictionaries({"expression": st.integers() | st.none()}) | st.just({}),
    "get_current_time": st.fixed_dictionaries({"timezone": st.integers()}),
    "date_calculator": st.fixed_dictionaries(
        {"operation": st.text(max_size=8).filter(lambda s: s not in {"add", "subtract", "difference", "weekday"})},
        optional={"date": st.text(max_size=5)},
    ),
    "distance": st.fixed_dictionaries({"a": points, "b": st.fixed_dictionaries({"x": st.text(max_size=3)})}),
}


@st.composite
def illegal(draw: st.DrawFn) -> dict[str, Any]:
    """A reply that breaks one rule."""
    base = draw(actions())
    answer = draw(texts)
    kind = draw(st.sampled_from(["unknown tool", "bad args", "extra arg", "both", "a thought", "neither", "extra"]))
    if kind == "unknown tool":
        base["action"]["tool"] = draw(st.text(min_size=1, max_size=12).filter(lambda n: n not in BY_NAME))
    elif kind == "bad args":
        name = draw(st.sampled_from(sorted(BAD_ARGUMENTS)))
        base["action"] = {"tool": name, "arguments": draw(BAD_ARGUMENTS[name])}
    elif kind == "extra arg":
        base["action"]["arguments"] = {**base["action"]["arguments"], "unexpected_argument": 1}
    elif kind == "both":
        base["final_answer"] = answer
    elif kind == "a thought":  # the decision comes alone: a small model's thought drifted into wrong answers
        base = draw(st.sampled_from([{**base, "thought": answer}, {"thought": answer, "final_answer": answer}]))
    elif kind == "neither":
        base = {"thought": answer}
    else:
        base["observation"] = "made up by the model"
    return base


@settings(max_examples=300, deadline=None)
@given(illegal())
def test_every_illegal_reply_is_rejected(reply: dict[str, Any]) -> None:
    assert not VALIDATOR.is_valid(reply), reply


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('{"thought": "x", "action": {"tool": "calculator", "arguments": {}}, "final_answer": "y"}', "both"),
        ('{"thought": 3, "action": {"tool": "calculator", "arguments": {}}}', '"thought" must be a string'),
        ('{"thought": "hmm"}', "neither"),
        ("Thought: I will answer in text\nFinal Answer: 4", "not a JSON object"),
        ('{"thought": "x", "final_answer": "   "}', "non-empty"),
        ('{"thought": "x", "action": {"tool": "calculator", "arguments": "1+1"}}', "must be a JSON object"),
        ("", "empty"),
    ],
)
def test_the_reader_names_what_is_wrong(text: str, problem: str) -> None:
    found = read_reply(text).problem
    assert found is not None and problem in found


def test_the_reader_tolerates_a_fence_and_a_preamble() -> None:
    fenced = '```json\n{"thought": "t", "final_answer": "4"}\n```'
    chatty = 'Sure! {"thought": "t", "action": {"tool": "calculator", "arguments": {"expression": "2+2"}}} done'
    assert (read_reply(fenced).final_answer, read_reply(chatty).arguments) == ("4", {"expression": "2+2"})


def test_the_chat_shows_the_answer_while_it_streams() -> None:
    assert partial_answer('{"thought": "t", "final_answer": "Line one\\nand \\"two') == 'Line one\nand "two'
    assert partial_answer('{"thought": "still thinking') == ""


SEED = "What weekday is 150 days after 2024-05-20?"
DATE_ARGS = {"operation": "add", "date": "2024-05-20", "days": 150, "other_date": None}
DATE_ACTION = {"tool": "date_calculator", "arguments": DATE_ARGS}
DATE_STEP = json.dumps({"action": DATE_ACTION})
DATE_ANSWER = json.dumps({"final_answer": "2024-10-17, a Thursday."})


def seed_run(server: FakeOpenAIServer, streaming: bool = True) -> list[Any]:
    """The seed question with protocol json against the fake server."""
    model = OpenAIChatModel("fake-model", base_url=server.base_url, api_key="sk-test", streaming=streaming)
    return list(Agent(model, builtin_tools(), protocol="json").run(SEED))


@pytest.mark.parametrize("streaming", [True, False])
def test_the_seed_question_end_to_end_with_the_schema_enforced(streaming: bool) -> None:
    with FakeOpenAIServer([DATE_STEP, DATE_ANSWER]) as server:
        events = seed_run(server, streaming)
    formats = server.response_formats
    assert [f["type"] for f in formats] == ["json_schema", "json_schema"]  # type: ignore[index]
    sent = formats[0]["json_schema"]  # type: ignore[index]
    assert (sent["name"], sent["strict"], sent["schema"]) == (SCHEMA_NAME, True, reply_schema(builtin_tools()))
    for reply in (DATE_STEP, DATE_ANSWER):
        jsonschema.validate(json.loads(reply), sent["schema"])
    assert simplify(events) == [
        ("run_started", SEED),
        ("step", 1),
        ("model", "", [("date_calculator", DATE_ARGS)]),
        ("tool", "date_calculator", DATE_ARGS),
        ("observation", "2024-05-20 (Monday) + 150 days = 2024-10-17 (Thursday)", None),
        ("step", 2),
        ("model", "", "2024-10-17, a Thursday."),
        ("answer", "2024-10-17, a Thursday."),
        ("finished", "completed", "2024-10-17, a Thursday.", None),
    ]
    second_request = server.requests[1]["messages"]
    assert second_request[-2:] == [
        {"role": "assistant", "content": DATE_STEP},
        {
            "role": "user",
            "content": "Observation: date_calculator returned: 2024-05-20 (Monday) + 150 days = 2024-10-17 (Thursday)\n"
            "If this answers the question, give the final answer now.",
        },
    ]


def test_a_server_with_only_json_mode_gets_json_object_and_the_reply_is_still_checked() -> None:
    off_schema = json.dumps({"thought": "no tool named so", "action": {"tool": "teleport", "arguments": {}}})
    with FakeOpenAIServer([off_schema, DATE_STEP, DATE_ANSWER], response_formats={"json_object"}) as server:
        events = seed_run(server)
    assert [f["type"] for f in server.response_formats] == [  # type: ignore[index]
        "json_schema",
        "json_object",
        "json_object",
        "json_object",
    ]
    unknown = next(e for e in events if getattr(e, "tool", None) == "teleport" and hasattr(e, "error"))
    assert (unknown.error, events[-1].status) == ("unknown tool", "completed")  # fed back as an observation


def test_a_server_with_neither_says_so_in_one_sentence() -> None:
    with FakeOpenAIServer([DATE_STEP], response_formats=()) as server:
        events = seed_run(server)
    finished = events[-1]
    assert [f["type"] for f in server.response_formats] == ["json_schema", "json_object"]  # type: ignore[index]
    assert finished.status == "error" and "\n" not in finished.error
    assert "accepts neither a JSON schema nor JSON mode" in finished.error
    assert finished.error.endswith("choose the react or tools protocol.")


def test_a_reply_in_the_wrong_shape_gets_a_correction_and_the_run_goes_on() -> None:
    model = ScriptedModel(["Thought: text habits\nFinal Answer: 4", '{"thought": "ok", "final_answer": "4"}'])
    events = list(Agent(model, builtin_tools(), protocol="json").run("2+2?"))
    assert [e for e in simplify(events) if e[0] in {"model", "finished"}] == [
        ("model", "", "the reply is not a JSON object"),
        ("model", "ok", "4"),
        ("finished", "completed", "4", None),
    ]
    correction = model.requests[1].messages[-1]["content"]
    assert correction.startswith("Your last reply could not be used: the reply is not a JSON object.")


def test_same_loop_same_events_same_trace_as_the_text_protocol() -> None:
    react_step = f"Thought: I need date arithmetic.\nAction: date_calculator\nAction Input: {json.dumps(DATE_ARGS)}"
    react = list(Agent(ScriptedModel([react_step, "Thought: The tool says so.\nFinal Answer: 2024-10-17, a Thursday."]),
                       builtin_tools()).run(SEED))  # fmt: skip
    thoughtful = [  # the schema leaves the thought out; a reply that has one (json_object mode) keeps it
        json.dumps({"thought": "I need date arithmetic.", "action": DATE_ACTION}),
        json.dumps({"thought": "The tool says so.", "final_answer": "2024-10-17, a Thursday."}),
    ]
    as_json = list(Agent(ScriptedModel(thoughtful), builtin_tools(), protocol="json").run(SEED))
    assert simplify(as_json) == simplify(react)
    names = [s.name for s in build_spans(as_json)]
    assert names == [s.name for s in build_spans(react)]
    assert build_spans(as_json)[0].attributes["sparrow.protocol"] == "json"


def test_json_is_a_registered_protocol() -> None:
    assert PROTOCOLS["json"] is JsonSchemaProtocol and Agent(ScriptedModel([]), [], protocol="json").protocol.name


def test_the_cli_takes_protocol_json() -> None:
    with FakeOpenAIServer([DATE_STEP, DATE_ANSWER]) as server:
        done = sparrow(server, "ask", SEED, "--protocol", "json", "--no-save", "--model", "fake-model")
    assert (done.returncode, done.stdout.strip()) == (0, "2024-10-17, a Thursday."), done.stderr
    assert server.response_formats[0]["type"] == "json_schema"  # type: ignore[index]


def test_a_reply_cut_by_max_tokens_inside_its_answer_keeps_the_answer_as_written() -> None:
    text = '{"thought": "1000 - 387 is 613.", "final_answer": "613. Then 613 is 613. Then 6'
    protocol = JsonSchemaProtocol()
    tools = ToolSet(builtin_tools())
    cut = protocol.interpret(Completion(text=text, finish_reason="length"), tools)
    assert (cut.final_answer, cut.format_error) == ("613. Then 613 is 613. Then 6", None)
    whole = protocol.interpret(Completion(text=text, finish_reason="stop"), tools)  # not cut: unusable as before
    assert whole.final_answer is None and whole.format_error is not None
