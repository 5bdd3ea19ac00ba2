"""Model Context Protocol servers as tool sources: configuration, live sessions, and their tools in the catalogue.

``load_mcp_tools()`` finds the configuration (``--mcp-config``, $SPARROW_MCP_CONFIG or ./mcp.json), starts the
servers and returns their tools. Only this needs the ``mcp`` package (``pip install 'sparrow-agent[mcp]'``);
without a configuration nothing is imported or started.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Iterable

from agent_core.mcp.config import (
    CONFIG_ENV,
    McpConfig,
    McpConfigError,
    ServerConfig,
    find_config,
    load_config,
    parse_config,
)
from agent_core.mcp.status import UNAVAILABLE, FixedServer, McpTools, ServerHandle, ServerStatus

MISSING_SDK = "the mcp package is not installed (pip install 'sparrow-agent[mcp]')"


def sdk_installed() -> bool:
    """True when the official ``mcp`` SDK can be imported."""
    return importlib.util.find_spec("mcp") is not None


def load_mcp_tools(config: str | os.PathLike[str] | McpConfig | None = None, *, taken: Iterable[str] = ()) -> McpTools:
    """Tools of the configured MCP servers (none if there is no configuration); never raises for a bad server.

    ``config`` is a file (e.g. ``--mcp-config``), an already parsed McpConfig, or None to look for one.
    ``taken`` are names already used by other tools: MCP tools never reuse them.
    """
    try:
        parsed = config if isinstance(config, McpConfig) else _read(config)
    except McpConfigError as exc:
        return McpTools(errors=(str(exc),))
    if parsed is None:
        return McpTools()
    if not parsed.servers:
        return McpTools(errors=parsed.errors)
    if not sdk_installed():
        return _without_sdk(parsed)
    from agent_core.mcp.servers import shared_servers  # the optional SDK is imported only when servers are configured

    return shared_servers().tools(parsed, taken)


def _read(explicit: str | os.PathLike[str] | None) -> McpConfig | None:
    path = find_config(explicit)
    return load_config(path) if path is not None else None


def _without_sdk(config: McpConfig) -> McpTools:
    servers = tuple(
        FixedServer(name, ServerStatus(name, s.transport, s.target, UNAVAILABLE, s.trust, problem=MISSING_SDK))
        for name, s in config.servers.items()
    )
    errors = (*config.errors, f"MCP servers are configured in {config.source or 'the MCP config'} but {MISSING_SDK}")
    return McpTools(errors=errors, servers=servers)


__all__ = [
    "CONFIG_ENV",
    "McpConfig",
    "McpConfigError",
    "McpTools",
    "ServerConfig",
    "ServerHandle",
    "ServerStatus",
    "find_config",
    "load_config",
    "load_mcp_tools",
    "parse_config",
    "sdk_installed",
]
