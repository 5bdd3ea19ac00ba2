"""``python -m agent_core tools``: the available tools with their origins and parameter schemas."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TextIO

from agent_core.cli.exit_codes import EXIT_OK
from agent_core.cli.mcp_option import add_mcp_option, mcp_source
from agent_core.engine.approvals import app_defaults, asks_first
from agent_core.runtime.catalog import Catalog, tool_catalog


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``tools`` command."""
    tools = subparsers.add_parser("tools", help="list the available tools and their parameter schemas")
    add_mcp_option(tools)
    tools.set_defaults(handler=cmd_tools)


def cmd_tools(args: argparse.Namespace) -> int:
    """Print each MCP server's status, then each tool (built-in, web, plugins, MCP) with its origin and schema."""
    catalog = tool_catalog(mcp=mcp_source(args))
    for problem in catalog.errors:
        print(f"sparrow: warning: {problem}", file=sys.stderr)
    print_servers(catalog, sys.stdout)
    for t in catalog.tools:
        approval = ", asks for approval" if t.needs_approval else ""
        asks = (
            " (asks before each call: --yes or --trust to allow)"
            if asks_first(t, app_defaults()) and not approval
            else ""
        )
        print(f"{t.name} [{catalog.origins.get(t.name, '?')}{approval}]: {t.description}{asks}")
        print(json.dumps(t.parameters, indent=2, ensure_ascii=False))
    return EXIT_OK


def print_servers(catalog: Catalog, out: TextIO) -> None:
    """One status line per configured MCP server (nothing when none is configured)."""
    if not catalog.mcp_servers:
        return
    print("MCP servers:", file=out)
    for server in catalog.mcp_servers:
        print(f"  {server.status().line()}", file=out)
    print(file=out)
