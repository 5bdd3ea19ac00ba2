"""Tools: the ``@tool`` decorator, the registry, the runner and the built-in tools."""

from agent_core.tools.base import (
    Tool,
    ToolArgumentsError,
    ToolDefinitionError,
    ToolError,
    ToolOutput,
    ToolSet,
    tool,
)
from agent_core.tools.calculator import calculator
from agent_core.tools.clock import get_current_time
from agent_core.tools.dates import date_calculator


def builtin_tools() -> list[Tool]:
    """The tools every Sparrow agent has unless told otherwise."""
    return [calculator, get_current_time, date_calculator]


__all__ = [
    "Tool",
    "ToolArgumentsError",
    "ToolDefinitionError",
    "ToolError",
    "ToolOutput",
    "ToolSet",
    "builtin_tools",
    "calculator",
    "date_calculator",
    "get_current_time",
    "tool",
]
