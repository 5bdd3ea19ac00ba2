"""Tools: the ``@tool`` decorator, the registry, the runner and the built-in tools."""

from agent_core.tools.builtin import builtin_tools, calculator, date_calculator, get_current_time
from agent_core.tools.network import WebSettings, web_tools
from agent_core.tools.network.fetch import fetch_url, make_fetch_url
from agent_core.tools.network.search import make_web_search, web_search
from agent_core.tools.network.weather import get_weather, make_get_weather
from agent_core.tools.plugins import LoadedTools, PluginError, load_plugins
from agent_core.tools.retrieval import ToolIndex, select_tools
from agent_core.tools.tool import (
    Tool,
    ToolArgumentsError,
    ToolDefinitionError,
    ToolError,
    ToolOutput,
    ToolSet,
    tool,
)

__all__ = [
    "LoadedTools",
    "PluginError",
    "Tool",
    "ToolArgumentsError",
    "ToolDefinitionError",
    "ToolError",
    "ToolIndex",
    "ToolOutput",
    "ToolSet",
    "WebSettings",
    "builtin_tools",
    "calculator",
    "date_calculator",
    "fetch_url",
    "get_current_time",
    "get_weather",
    "load_plugins",
    "make_fetch_url",
    "make_get_weather",
    "make_web_search",
    "select_tools",
    "tool",
    "web_search",
    "web_tools",
]
