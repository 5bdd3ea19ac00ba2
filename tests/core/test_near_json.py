"""The ReAct parser reads near-JSON: curly quotes, full-width punctuation, trailing commas, unquoted keys."""

from __future__ import annotations

import json
import string
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_core import Agent
from agent_core.engine.protocols.react import parse_action_input, parse_react
from agent_core.testing import ScriptedModel
from agent_core.tools import calculator, tool


@tool
def book(city: str, nights: int, late: bool = False) -> str:
    """Book a room.

    Args:
        city: Where.
        nights: How many nights.
        late: Late check-in.
    """
    return f"{city} {nights} {late}"


QUOTES = {
    "straight": ('"', '"'),
    "curly": ("“", "”"),
    "curly single": ("‘", "’"),
    "single": ("'", "'"),
    "corner": ("「", "」"),
    "full-width": ("＂", "＂"),
}
CONTENT = st.text(string.ascii_letters + string.digits + " +-*/().?!@#%&_=<>^~", max_size=30)
KEYS = st.from_regex(r"[a-z_][a-z0-9_]{0,10}", fullmatch=True)
VALUES = st.recursive(
    CONTENT | st.integers(-(10**9), 10**9) | st.booleans(),
    lambda inner: st.dictionaries(KEYS, inner, min_size=1, max_size=3),
    max_leaves=6,
)


def near_json(value: Any, style: dict[str, Any]) -> str:
    """``value`` written the way a careless model or an input method would."""
    open_q, close_q = QUOTES[style["quotes"]]
    if isinstance(value, dict):
        colon, comma = style["colon"], style["comma"]
        items = [
            (key if style["bare_keys"] else f"{open_q}{key}{close_q}") + f"{colon} " + near_json(inner, style)
            for key, inner in value.items()
        ]
        opening, closing = style["braces"]
        return opening + f"{comma} ".join(items) + (comma if style["trailing"] else "") + closing
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    return f"{open_q}{value}{close_q}"


STYLES = st.fixed_dictionaries(
    {
        "quotes": st.sampled_from(list(QUOTES)),
        "colon": st.sampled_from([":", "："]),
        "comma": st.sampled_from([",", "，"]),
        "braces": st.sampled_from([("{", "}"), ("｛", "｝")]),
        "trailing": st.booleans(),
        "bare_keys": st.booleans(),
    }
)


@settings(max_examples=800, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=st.dictionaries(KEYS, VALUES, min_size=1, max_size=4), style=STYLES)
def test_near_json_objects_parse_to_the_same_value(value: dict[str, Any], style: dict[str, Any]) -> None:
    text = near_json(value, style)
    arguments, problem = parse_action_input(text, None)
    assert problem is None, text
    assert arguments == value, text


@pytest.mark.parametrize(
    "raw",
    [
        "{“expression”: “7*6”}",
        "｛“expression”：“7*6”｝",
        "{‘expression’: ‘7*6’}",
        "{expression: '7*6',}",
        '{"expression": "7*6",}',
        "```json\n{“expression”: “7*6”}\n```",
        "“7*6”",
        "「7*6」",
    ],
)
def test_curly_quotes_reach_the_calculator(raw: str) -> None:
    model = ScriptedModel(
        [f"Thought: multiply\nAction: calculator\nAction Input: {raw}", "Thought: ok\nFinal Answer: 42"]
    )
    events = list(Agent(model, [calculator]).run("7*6?"))
    [finished] = [e for e in events if e.type == "tool_finished"]
    assert (finished.output, finished.error) == ("42", None)


def test_the_issue_example_in_a_whole_reply() -> None:
    reply = parse_react("Thought: 用计算器\nAction: calculator\nAction Input: {“expression”: “7*6”}")
    assert (reply.action, reply.arguments, reply.input_problem) == ("calculator", {"expression": "7*6"}, None)


def test_typed_arguments_keep_their_types() -> None:
    arguments, problem = parse_action_input("{“city”：“Paris”， “nights”： 3， “late”: true，}", book)
    assert (arguments, problem) == ({"city": "Paris", "nights": 3, "late": True}, None)


def test_valid_json_is_never_rewritten() -> None:
    raw = json.dumps({"expression": "“quoted” text: {a, b,}"}, ensure_ascii=False)
    assert parse_action_input(raw, calculator) == ({"expression": "“quoted” text: {a, b,}"}, None)


@pytest.mark.parametrize("raw", ["{“expression” 7*6 ]]", "{“expression”: “7*6”", "{expression: }"])
def test_garbage_and_cut_replies_are_still_a_clear_problem(raw: str) -> None:
    arguments, problem = parse_action_input(raw, calculator)
    assert arguments == {} and problem is not None and problem.startswith("Action Input is not valid JSON")
