"""Model Context Protocol servers as tool sources: configuration, live sessions, and their tools in the catalogue.

``load_mcp_tools()`` finds the configuration (``--mcp-config``, $SPARROW_MCP_CONFIG or ./mcp.json), starts the
servers and returns their tools. The servers need the official SDK (``pip install 'sparrow-agent[mcp]'``): it is
imported the first time a configured server is needed (about 0.8 s, once per process), so commands and app
starts without MCP servers do not pay for it; when it is missing, configured servers are reported as
unavailable and everything else works. Without a configuration nothing is started.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterable
from functools import cache
from types import ModuleType

from agent_core.tools.mcp.config import (
    CONFIG_ENV,
    UNAVAILABLE,
    FixedServer,
    McpConfig,
    McpConfigError,
    McpTools,
    ServerConfig,
    ServerHandle,
    ServerStatus,
    find_config,
    load_config,
    parse_config,
)

SDK_MODULES = frozenset({"mcp", "mcp_types", "httpx2", "jsonschema"})
"""Top-level modules of the optional SDK and its dependencies."""
MISSING_SDK = "the mcp package is not installed (pip install 'sparrow-agent[mcp]')"


@cache
def _with_sdk() -> ModuleType | None:
    """``agent_core.tools.mcp.tools`` (the half that needs the SDK), imported on first use; None without the SDK.

    A deferred import (tests/core/test_layout.py lists them): the SDK and its dependencies take about 0.8 s to
    import, which every command and app start would pay without a server configured.
    """
    try:
        return importlib.import_module("agent_core.tools.mcp.tools")
    except ModuleNotFoundError as missing:  # the optional SDK; any other missing module is a real error
        if (missing.name or "").split(".")[0] not in SDK_MODULES:
            raise
        return None


def sdk_installed() -> bool:
    """True when the official ``mcp`` SDK (and so MCP servers) can be used."""
    return _with_sdk() is not None


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
    servers = _with_sdk()
    if servers is None or not sdk_installed():
        return _without_sdk(parsed)
    return servers.shared_servers().tools(parsed, taken)


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
