"""MCP tool names in Sparrow: valid identifiers, at most 64 characters, never clashing with anything."""

from __future__ import annotations

import re

from tests.mcp.conftest import require_sdk

require_sdk()

from agent_core.tools.mcp.tools import tool_name  # noqa: E402 (after the skip: it needs the SDK)

VALID = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_]{0,63}$")


def test_server_and_tool_names_are_joined_and_cleaned() -> None:
    assert tool_name("time", "get_current_time") == "time__get_current_time"
    assert tool_name("my-server", "get.weather/now") == "my_server__get_weather_now"
    assert tool_name("7zip", "list") == "mcp_7zip__list"
    chinese = tool_name("天气", "查询")
    assert VALID.match(chinese) and re.fullmatch(r"x[0-9a-f]{6}__x[0-9a-f]{6}", chinese)
    assert tool_name("天气", "预报") != chinese


def test_long_names_are_cut_with_a_hash_that_keeps_them_apart() -> None:
    first = tool_name("a-very-long-server-name-indeed", "x" * 80)
    second = tool_name("a-very-long-server-name-indeed", "x" * 79 + "y")
    assert len(first) == len(second) == 64 and first != second
    assert VALID.match(first) and VALID.match(second)


def test_a_taken_name_gets_a_number() -> None:
    taken = {"calc__add", "calc__add_2"}
    assert tool_name("calc", "add", taken) == "calc__add_3"
    long_taken = {tool_name("s", "t" * 100)}
    numbered = tool_name("s", "t" * 100, long_taken)
    assert numbered.endswith("_2") and len(numbered) <= 64 and numbered not in long_taken
