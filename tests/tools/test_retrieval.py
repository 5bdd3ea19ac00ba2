"""Tool retrieval: BM25 ranking, pinned tools, stable order, speed."""

from __future__ import annotations

import time
from typing import Literal

import pytest

from agent_core.tools import builtin_tools
from agent_core.tools.network.fetch import fetch_url
from agent_core.tools.network.search import web_search
from agent_core.tools.network.weather import get_weather
from agent_core.tools.retrieval import ToolIndex, select_tools, tokenize
from agent_core.tools.tool import Tool, tool


def make_tool(name: str, description: str) -> Tool:
    def fn(text: str) -> str:
        return text

    fn.__doc__ = f"{description}\n\nArgs:\n    text: Input text."
    return Tool(fn, name=name)


@tool
def convert_currency(amount: float, currency: Literal["USD", "EUR", "CNY"]) -> str:
    """Convert money between currencies at today's exchange rate.

    Args:
        amount: How much money.
        currency: Target currency code.
    """
    return ""


FILLER = [
    make_tool(f"filler_{i}", f"Internal helper number {i} for bookkeeping records and ledgers.") for i in range(30)
]
TOOLS = [*builtin_tools(), web_search, get_weather, fetch_url, convert_currency, *FILLER]


def names(tools: list[Tool]) -> list[str]:
    return [t.name for t in tools]


def test_all_tools_are_offered_when_they_fit() -> None:
    assert select_tools(TOOLS[:5], "anything", limit=5) == TOOLS[:5]


@pytest.mark.parametrize(
    ("query", "best"),
    [
        ("What's the weather in Paris tomorrow? Will it rain?", "get_weather"),
        ("Thought: I should search the web for recent news about sparrows", "web_search"),
        ("Read the page at https://example.com and summarise it", "fetch_url"),
        ("What weekday is 150 days after 2024-05-20?", "date_calculator"),
        ("How much is 6 * 7 squared? Evaluate the arithmetic expression", "calculator"),
        ("What time is it now in Tokyo? which time zone", "get_current_time"),
        ("Convert 100 USD to EUR", "convert_currency"),
    ],
)
def test_the_most_relevant_tool_ranks_first(query: str, best: str) -> None:
    index = ToolIndex(TOOLS)
    scores = index.scores(query)
    ranked = sorted(range(len(TOOLS)), key=lambda i: -scores[i])
    assert TOOLS[ranked[0]].name == best
    assert best in names(select_tools(TOOLS, query, limit=3))


def test_selection_keeps_registration_order_and_pinned_tools() -> None:
    chosen = select_tools(TOOLS, "weather forecast and a web search", limit=4, pinned=["calculator"])
    assert names(chosen)[:1] == ["calculator"]
    assert len(chosen) == 4
    assert names(chosen) == [t.name for t in TOOLS if t in chosen]
    assert {"get_weather", "web_search"} <= set(names(chosen))


def test_pinned_tools_stay_even_beyond_the_limit() -> None:
    chosen = select_tools(TOOLS, "weather", limit=2, pinned=["calculator", "fetch_url", "filler_3", "unknown_tool"])
    assert names(chosen) == ["calculator", "fetch_url", "filler_3"]


def test_unmatched_query_fills_with_the_earliest_tools() -> None:
    assert names(select_tools(TOOLS, "zzz qqq", limit=3)) == names(TOOLS[:3])
    assert names(select_tools(TOOLS, "", limit=2, pinned=["filler_0"])) == [TOOLS[0].name, "filler_0"]


def test_selection_is_deterministic() -> None:
    first = select_tools(TOOLS, "search weather", limit=5)
    assert all(select_tools(list(TOOLS), "search weather", limit=5) == first for _ in range(3))


def test_limit_must_be_positive() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        select_tools(TOOLS, "q", limit=0)


def test_tokenize() -> None:
    assert tokenize("getCurrentTime for the time_zones, searches & cities") == [
        "current",
        "time",
        "time",
        "zone",
        "search",
        "city",
    ]
    assert tokenize("今天天气") == ["今天", "天天", "天气"]


def test_chinese_descriptions_match_chinese_questions() -> None:
    zh = make_tool("tianqi", "查询城市天气预报")
    tools = [*FILLER[:5], zh]
    assert names(select_tools(tools, "北京明天天气怎么样", limit=1)) == ["tianqi"]


def test_a_hundred_tools_rank_in_milliseconds() -> None:
    many = [
        make_tool(f"tool_{i}", f"Does task {i} with widgets, gadgets and sprockets of kind {i % 7}.")
        for i in range(100)
    ]
    index = ToolIndex(many)
    started = time.perf_counter()
    for _ in range(100):
        index.select("Thought: I need kind 3 sprockets for task 42", limit=10)
    per_query = (time.perf_counter() - started) / 100
    assert per_query < 0.005
    assert "tool_42" in names(index.select("Thought: I need kind 3 sprockets for task 42", limit=10))
