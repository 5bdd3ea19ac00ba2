"""MCP latency: starting a server and listing its tools, the first call, and calls on the reused session.

Runs the reference servers from PyPI over stdio (mcp-server-time, and mcp-server-git on a throwaway
repository), each beside a direct in-process call of Sparrow's own ``get_current_time`` as the floor.

    python bench/mcp_latency.py [--calls 50]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from agent_core.tools import get_current_time
from agent_core.tools.mcp import parse_config
from agent_core.tools.mcp.tools import McpServers


def command(name: str) -> str:
    """The reference server's executable (beside this Python, or on PATH)."""
    found = shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)
    if found is None:
        sys.exit(f"{name} is not installed: pip install -e '.[dev]'")
    return found


def measure(servers: McpServers, name: str, entry: dict[str, Any], tool: str, args: dict[str, Any], calls: int) -> None:
    """Print start, first call and reused-call times for one server."""
    began = time.perf_counter()
    found = servers.tools(parse_config({"mcpServers": {name: {**entry, "trust": True}}}), taken=())
    start_ms = (time.perf_counter() - began) * 1000
    target = next(t for t in found.tools if t.name == tool)
    began = time.perf_counter()
    target.invoke(args)
    first_ms = (time.perf_counter() - began) * 1000
    times = []
    for _ in range(calls):
        began = time.perf_counter()
        target.invoke(args)
        times.append((time.perf_counter() - began) * 1000)
    p50, p95 = statistics.median(times), sorted(times)[int(len(times) * 0.95) - 1]
    print(
        f"{name:5} start + list tools {start_ms:7.0f} ms | first call {first_ms:6.1f} ms | "
        f"reused call p50 {p50:5.2f} ms, p95 {p95:5.2f} ms ({calls} calls)"
    )


def main() -> None:
    """Run the measurements and print one line per server, then the in-process floor."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=50)
    calls = parser.parse_args().calls
    servers = McpServers()
    with tempfile.TemporaryDirectory() as repo:
        subprocess.run(["git", "init", "-q", repo], check=True, timeout=30)
        try:
            measure(
                servers,
                "time",
                {"command": command("mcp-server-time")},
                "time__get_current_time",
                {"timezone": "Asia/Tokyo"},
                calls,
            )
            git = {"command": command("mcp-server-git"), "args": ["--repository", repo]}
            measure(servers, "git", git, "git__git_status", {"repo_path": repo}, calls)
        finally:
            began = time.perf_counter()
            servers.close()
            print(f"stop both servers {(time.perf_counter() - began) * 1000:.0f} ms")
    began = time.perf_counter()
    for _ in range(calls):
        get_current_time.invoke({"timezone": "Asia/Tokyo"})
    print(f"floor: built-in get_current_time in process {(time.perf_counter() - began) * 1000 / calls:.3f} ms per call")


if __name__ == "__main__":
    main()
