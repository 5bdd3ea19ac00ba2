"""Every tool an app or the CLI can offer: built-ins, web, long-term memory, plugins and MCP servers, with origins."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from agent_core.longterm.tools import make_memory_tools
from agent_core.tools import builtin_tools
from agent_core.tools.mcp import McpConfig, McpTools, ServerHandle, load_mcp_tools
from agent_core.tools.network import web_tools
from agent_core.tools.plugins import isolate, load_plugins
from agent_core.tools.tool import Tool


@dataclass(frozen=True)
class Catalog:
    """Available tools in a stable order, where each came from, and what failed to load."""

    tools: tuple[Tool, ...]
    origins: dict[str, str] = field(default_factory=dict)
    """Tool name → ``built-in``, ``web``, ``memory``, ``mcp:<server>`` or the plugin source (``module mypkg.tools``)."""
    errors: tuple[str, ...] = ()
    """Plugin sources, settings or MCP servers that failed, one sentence each."""
    mcp_servers: tuple[ServerHandle, ...] = ()
    """Configured MCP servers; ``.status()`` tells how each is doing now."""

    def get(self, names: list[str] | tuple[str, ...]) -> list[Tool]:
        """The tools with these names, in catalogue order; ValueError naming unknown ones."""
        known = {t.name: t for t in self.tools}
        unknown = [n for n in names if n not in known]
        if unknown:
            raise ValueError(f"unknown tool(s): {', '.join(unknown)}; available: {', '.join(known)}")
        return [t for t in self.tools if t.name in names]


def tool_catalog(
    *,
    web: bool = True,
    memory: bool = True,
    plugins: bool = True,
    mcp: str | os.PathLike[str] | McpConfig | bool = True,
) -> Catalog:
    """Built-ins, web tools (configured from the environment), memory tools (unbound), plugins (SPARROW_TOOLS...),
    then the tools of MCP servers (``mcp``: a config file or McpConfig; True looks for one; False skips them).

    The memory tools (remember, recall) need a store and a session: bind them when starting a run with
    ``agent_core.longterm.tools.bind_memory_tools``.
    """
    tools = builtin_tools()
    origins = dict.fromkeys((t.name for t in tools), "built-in")
    errors: list[str] = []
    if web:
        try:
            found = web_tools()
        except ValueError as exc:  # a bad SPARROW_* setting: report it, keep the rest working
            errors.append(f"web tools: {exc}")
        else:
            tools += found
            origins.update(dict.fromkeys((t.name for t in found), "web"))
    if memory:
        placeholders = make_memory_tools(None)
        tools += placeholders
        origins.update(dict.fromkeys((t.name for t in placeholders), "memory"))
    if plugins:
        loaded = load_plugins(taken=tools)
        tools += isolate(loaded)
        origins.update(loaded.origins)
        errors += loaded.errors
    servers = _mcp_tools(mcp, tools)
    tools += servers.tools
    origins.update(servers.origins)
    errors += servers.errors
    return Catalog(tuple(tools), origins, tuple(errors), servers.servers)


def _mcp_tools(mcp: str | os.PathLike[str] | McpConfig | bool, taken: list[Tool]) -> McpTools:
    """The MCP servers' tools (none when ``mcp`` is False), named clear of the ``taken`` ones."""
    if mcp is False:
        return McpTools()
    return load_mcp_tools(None if mcp is True else mcp, taken=[t.name for t in taken])
