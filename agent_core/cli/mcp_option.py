"""The CLI's side of MCP servers: the ``--mcp-config`` option and the server status lines of ``tools``."""

from __future__ import annotations

import argparse
import os
from typing import TextIO

from agent_core.runtime.catalog import Catalog


def add_mcp_option(parser: argparse.ArgumentParser) -> None:
    """--mcp-config FILE: the MCP servers to use (default: $SPARROW_MCP_CONFIG, then ./mcp.json)."""
    parser.add_argument(
        "--mcp-config",
        metavar="FILE",
        help="JSON file with an 'mcpServers' object (default: $SPARROW_MCP_CONFIG, then ./mcp.json)",
    )


def mcp_source(args: argparse.Namespace) -> str | os.PathLike[str] | bool:
    """What to pass as ``tool_catalog(mcp=...)``: the file given, or True to look for one."""
    return getattr(args, "mcp_config", None) or True


def print_servers(catalog: Catalog, out: TextIO) -> None:
    """One status line per configured MCP server (nothing when none is configured)."""
    if not catalog.mcp_servers:
        return
    print("MCP servers:", file=out)
    for server in catalog.mcp_servers:
        print(f"  {server.status().line()}", file=out)
    print(file=out)
