"""The MCP servers of one owner (the CLI command, or the process): one connection per configured server, shared by
every catalogue and run of that owner, closed with it (``process_resources``).

Building a catalogue starts the servers it needs (all at once) and lists their tools; a catalogue built again with
the same settings reuses the running servers, and a server whose settings changed is restarted.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from contextlib import suppress

from agent_core.process_resources import resources
from agent_core.tools.mcp.bridge import LoopThread
from agent_core.tools.mcp.connection import CLOSE_TIMEOUT, GRACE, McpServerError, ServerConnection
from agent_core.tools.mcp.mcp_config import McpConfig, ServerConfig
from agent_core.tools.mcp.mcp_status import DISABLED, FixedServer, McpTools, ServerHandle, ServerStatus
from agent_core.tools.mcp.mcp_tools import McpTool, tools_of


class McpServers:
    """Connections by server name; ``tools(config, taken)`` starts what is needed and builds the tools."""

    def __init__(self) -> None:
        self._loop = LoopThread()
        self._connections: dict[str, ServerConnection] = {}
        self._lock = threading.Lock()

    def connection(self, name: str, config: ServerConfig) -> ServerConnection:
        """The connection for ``name`` with these settings (a new one if the settings changed)."""
        with self._lock:
            current = self._connections.get(name)
            if current is not None and current.config == config:
                return current
            fresh = self._connections[name] = ServerConnection(name, config, self._loop)
        if current is not None:
            current.retired = True  # tools still holding it must not bring the old settings back
            current.close()
        return fresh

    def tools(self, config: McpConfig, taken: Iterable[str]) -> McpTools:
        """Start the enabled servers of ``config`` (in parallel), and their tools with unique names."""
        handles: list[ServerHandle] = []
        wanted: list[ServerConnection] = []
        for name, server in config.servers.items():
            if server.disabled:
                handles.append(FixedServer(name, _disabled(name, server)))
            else:
                wanted.append(self.connection(name, server))
                handles.append(wanted[-1])
        problems = _start_all(wanted)
        used = set(taken)
        tools: list[McpTool] = []
        for connection in wanted:
            if connection.name not in problems:
                made = tools_of(connection, used)
                used.update(t.name for t in made)
                tools += made
        origins = {t.name: f"mcp:{t.server}" for t in tools}
        errors = (*config.errors, *problems.values())
        return McpTools(tuple(tools), origins, errors, tuple(handles))

    def close(self) -> None:
        """Stop every server, then the event loop."""
        with self._lock:
            connections, self._connections = list(self._connections.values()), {}
        if connections and self._loop.running:
            with suppress(TimeoutError):  # a server that ignores every signal is left to the OS
                self._loop.run(_close_all(connections), CLOSE_TIMEOUT + GRACE)
        self._loop.stop()


async def _close_all(connections: list[ServerConnection]) -> None:
    await asyncio.gather(*(c.aclose() for c in connections), return_exceptions=True)


def _start_all(connections: list[ServerConnection]) -> dict[str, str]:
    """Start each connection (in parallel); server name -> why it failed."""

    def start(connection: ServerConnection) -> str | None:
        try:
            connection.start()
        except McpServerError as exc:
            return str(exc)
        return None

    if not connections:
        return {}
    with ThreadPoolExecutor(len(connections), thread_name_prefix="sparrow-mcp-start") as pool:
        outcomes = list(pool.map(start, connections))
    return {c.name: why for c, why in zip(connections, outcomes, strict=True) if why}


def _disabled(name: str, server: ServerConfig) -> ServerStatus:
    return ServerStatus(name, server.transport, server.target, DISABLED, server.trust)


def shared_servers() -> McpServers:
    """The servers of the current owner (started on first use, stopped when the owner closes)."""
    return resources().get("MCP servers", McpServers, McpServers.close)
