"""The CLI with MCP servers: `tools` shows each server's status, `ask` uses them, and no server outlives the CLI."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

from agent_core.cli import main
from agent_core.testing import FakeOpenAIServer
from tests.core.helpers import answer, react
from tests.mcp.conftest import demo_entry, reference_server, require_sdk

require_sdk()
ROOT = Path(__file__).resolve().parents[2]


def sparrow(*args: str, cwd: Path = ROOT, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agent_core", *args],
        cwd=cwd,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z" if Path(f"/proc/{pid}").exists() else True


def test_tools_lists_each_server_with_its_status_and_tools(tmp_path: Path) -> None:
    config = tmp_path / "servers.json"
    entries = {
        "time": {"command": reference_server("mcp-server-time"), "trust": True},
        "gone": {"command": "no-such-mcp"},
    }
    config.write_text(json.dumps({"mcpServers": entries}), encoding="utf-8")
    done = sparrow("tools", "--mcp-config", str(config))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "MCP servers:"
    assert re.fullmatch(r"  time \[stdio: .*mcp-server-time\] running, 2 tools, started in \d+ ms, trusted", lines[1])
    assert lines[2] == "  gone [stdio: no-such-mcp] failed: command not found: 'no-such-mcp'"
    assert any(line.startswith("time__get_current_time [mcp:time]: Get current time") for line in lines)
    assert "sparrow: warning: MCP server 'gone' failed to start: command not found: 'no-such-mcp'" in done.stderr


def test_ask_uses_mcp_json_in_the_working_directory_and_stops_the_server_at_exit(tmp_path: Path) -> None:
    pids = tmp_path / "pids.txt"
    entry = demo_entry(env={"DEMO_PID_FILE": str(pids)})
    (tmp_path / "mcp.json").write_text(json.dumps({"mcpServers": {"demo": entry}}), encoding="utf-8")
    script = [react("Ask the server.", "demo__echo", text="hello"), answer("It echoed.", "echo: hello")]
    with FakeOpenAIServer(script) as server:
        env = {"OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": "sk-cli-test", "PYTHONPATH": str(ROOT)}
        done = sparrow("ask", "Echo hello.", "--no-save", "--yes", cwd=tmp_path, **env)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "echo: hello\n"
    assert "demo__echo: approved by --yes" in done.stderr
    observation = server.requests[1]["messages"][-1]["content"]
    assert observation == 'Observation: {"result": "echo: hello"}'
    (pid,) = [int(line) for line in pids.read_text().split()]
    deadline = time.monotonic() + 10
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not alive(pid), "the MCP server outlived the CLI"


def test_a_command_stops_its_servers_before_it_returns(tmp_path: Path, capsys) -> None:
    # in this process: the servers end with the command that started them, not at the interpreter's exit
    pids = tmp_path / "pids.txt"
    config = tmp_path / "servers.json"
    config.write_text(json.dumps({"mcpServers": {"demo": demo_entry(env={"DEMO_PID_FILE": str(pids)})}}))
    assert main(["tools", "--mcp-config", str(config)]) == 0
    assert "running, 8 tools" in capsys.readouterr().out
    (pid,) = [int(line) for line in pids.read_text().split()]
    assert not alive(pid), "the MCP server outlived the command"
