"""The CLI's side of MCP servers: the ``--mcp-config`` option (the status lines are ``tools``')."""

from __future__ import annotations

import argparse
import os


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
