"""Any depth, any size: every parser of model output, tool output and files turns a too-deep value into a format
problem in one sentence, never "internal error: RecursionError"."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_core import Agent
from agent_core.engine.protocols import PROTOCOLS
from agent_core.engine.protocols.react import loads_near_json
from agent_core.guards.json_limits import loads
from agent_core.models.chat import Completion, ToolCall
from agent_core.models.replies import describe_body
from agent_core.store import SessionStore
from agent_core.store.files import SessionFileError, import_session
from agent_core.testing import FakeOpenAIServer, Reply, ScriptedModel
from agent_core.tools import ToolSet, builtin_tools
from agent_core.trace_export.jsonl import EventFormatError, read_jsonl

DEPTHS = st.sampled_from([65, 200, 999, 1_000, 5_000, 50_000, 200_000])
SHAPES = st.sampled_from(["list", "object", "mixed"])


def nested(depth: int, shape: str, inner: str = "1") -> str:
    """JSON nested ``depth`` levels deep in ``shape`` (lists, objects or both, alternating)."""
    opens = {"list": ["["], "object": ['{"a":'], "mixed": ["[", '{"a":']}[shape]
    closes = {"[": "]", '{"a":': "}"}
    chosen = [opens[i % len(opens)] for i in range(depth)]
    return "".join(chosen) + inner + "".join(closes[o] for o in reversed(chosen))


DEEP = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@DEEP
@given(depth=DEPTHS, shape=SHAPES)
def test_loads_refuses_any_depth_as_a_decode_error(depth: int, shape: str) -> None:
    with pytest.raises(json.JSONDecodeError, match="nested deeper than 64 levels"):
        loads(nested(depth, shape))


@DEEP
@given(depth=DEPTHS, shape=SHAPES, protocol=st.sampled_from(sorted(PROTOCOLS)))
def test_every_protocol_reads_deep_arguments_as_a_format_problem(depth: int, shape: str, protocol: str) -> None:
    tools = ToolSet(builtin_tools())
    arguments = '{"expression": ' + nested(depth, shape) + "}"
    completions = {
        "tools": Completion(tool_calls=(ToolCall("c1", "calculator", arguments),)),
        "react": Completion(text=f"Thought: x\nAction: calculator\nAction Input: {arguments}"),
        "json": Completion(text='{"thought": "x", "action": {"tool": "calculator", "arguments": ' + arguments + "}}"),
    }
    decision = PROTOCOLS[protocol]().interpret(completions[protocol], tools)
    problems = [c.problem for c in decision.calls] + [decision.format_error]
    assert decision.final_answer is None
    assert any(p for p in problems) or all(not c.arguments for c in decision.calls)


@DEEP
@given(depth=DEPTHS, protocol=st.sampled_from(sorted(PROTOCOLS)))
def test_a_run_with_deep_native_arguments_does_not_end_in_an_internal_error(depth: int, protocol: str) -> None:
    deep = '{"expression": ' + nested(depth, "list") + "}"
    first = {
        "tools": Reply(tool_calls=(("calculator", deep),)),
        "react": f"Thought: x\nAction: calculator\nAction Input: {deep}",
        "json": '{"thought": "x", "action": {"tool": "calculator", "arguments": ' + deep + "}}",
    }[protocol]
    final = {"tools": "42", "react": "Thought: ok\nFinal Answer: 42", "json": '{"thought": "ok", "final_answer": "42"}'}
    events = list(Agent(ScriptedModel([first, final[protocol]]), builtin_tools(), protocol=protocol).run("q"))
    assert events[-1].status == "completed", events[-1].error
    assert "RecursionError" not in json.dumps([e.to_dict() for e in events], default=str)


def test_a_streamed_tool_call_nested_deep_on_the_wire_ends_cleanly() -> None:
    deep = '{"expression": ' + nested(50_000, "object") + "}"
    with FakeOpenAIServer([Reply(tool_calls=(("calculator", deep),)), "done"]) as server:
        from agent_core.models import OpenAIChatModel

        model = OpenAIChatModel("fake-model", base_url=server.base_url, api_key="sk-test-0000000000")
        events = list(Agent(model, builtin_tools(), protocol="tools").run("q"))
    assert events[-1].status == "completed", events[-1].error


@DEEP
@given(depth=DEPTHS, shape=SHAPES)
def test_files_and_logs_nested_deep_are_refused_in_one_sentence(depth: int, shape: str) -> None:
    with pytest.raises(SessionFileError):  # "nested too deeply", or the shape it does have
        import_session(SessionStore.open("sqlite://"), nested(depth, shape))
    with pytest.raises(EventFormatError, match="nested deeper"):
        read_jsonl('{"type": "run_started", "run_id": "r", "ts": 1, "question": ' + nested(depth, shape) + "}")
    error = describe_body("http://127.0.0.1:1/v1", "application/json", nested(depth, shape).encode(), model="m")
    assert "RecursionError" not in str(error)
    with pytest.raises(ValueError):
        loads_near_json(nested(depth, shape))


def test_very_large_flat_arguments_still_parse() -> None:
    big = json.dumps({"expression": "1+" * 500_000 + "1"})
    assert len(loads(big)["expression"]) == 1_000_001
