"""Servers that fail to start, crash mid-call, hang or report errors: each a clear sentence, never a stuck run."""

from __future__ import annotations

import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from agent_core.tools import ToolError
from agent_core.tools.mcp import parse_config
from tests.mcp.conftest import demo_entry, free_port, require_sdk

require_sdk()


def start(servers, entries: dict):
    found = servers.tools(parse_config({"mcpServers": entries}), taken=())
    return {t.name: t for t in found.tools}, found


def test_a_command_that_does_not_exist_fails_to_start_and_the_others_run(servers) -> None:
    tools, found = start(servers, {"nope": {"command": "sparrow-no-such-command"}, "demo": demo_entry()})
    assert found.errors == ("MCP server 'nope' failed to start: command not found: 'sparrow-no-such-command'",)
    assert [s.status().state for s in found.servers] == ["failed", "running"]
    assert found.servers[0].status().line() == (
        "nope [stdio: sparrow-no-such-command] failed: command not found: 'sparrow-no-such-command'"
    )
    assert tools["demo__echo"].invoke({"text": "still here"}).content == '{"result": "echo: still here"}'


def test_a_server_that_exits_at_once_is_quoted(servers) -> None:
    script = "import sys; sys.stderr.write('missing API key\\n'); sys.exit(2)"
    _, found = start(servers, {"quits": {"command": sys.executable, "args": ["-c", script]}})
    (error,) = found.errors
    assert error.startswith("MCP server 'quits' failed to start: ") and "(its last words: missing API key)" in error


def test_a_server_that_never_answers_times_out_at_start(servers) -> None:
    sleeper = {"command": sys.executable, "args": ["-c", "import time; time.sleep(60)"], "startupTimeout": 1}
    _, found = start(servers, {"mute": sleeper})
    assert found.errors == ("MCP server 'mute' failed to start: did not start within 1 s",)
    assert found.servers[0].status().state == "failed"


def test_an_unreachable_http_server_fails_to_start(servers) -> None:
    url = f"http://127.0.0.1:{free_port()}/mcp"
    _, found = start(servers, {"away": {"url": url, "startupTimeout": 10}})
    (error,) = found.errors
    assert error.startswith(f"MCP server 'away' failed to start: cannot reach {url}")


def test_a_tool_error_carries_the_servers_reason(servers) -> None:
    tools, _ = start(servers, {"demo": demo_entry()})
    with pytest.raises(ToolError, match=r"^MCP server 'demo' reports an error from fail: .*disk is full"):
        tools["demo__fail"].invoke({"reason": "disk is full"})


def test_a_hanging_tool_is_cancelled_after_its_timeout_and_the_server_lives_on(servers) -> None:
    tools, found = start(servers, {"demo": demo_entry(timeout=1)})
    assert tools["demo__hang"].timeout == 5.0  # the runner's own limit stays above the server's
    with pytest.raises(ToolError, match=r"^MCP server 'demo' did not answer hang within 1 s; the call was cancelled$"):
        tools["demo__hang"].invoke({"seconds": 30})
    assert tools["demo__echo"].invoke({"text": "awake"}).content == '{"result": "echo: awake"}'
    assert found.servers[0].status().state == "running"


def test_a_server_that_dies_mid_call_is_reported_then_restarted(servers) -> None:
    tools, found = start(servers, {"demo": demo_entry()})
    connection = found.servers[0]
    with pytest.raises(ToolError) as failure:
        tools["demo__crash"].invoke({})
    assert str(failure.value) == (
        "MCP server 'demo' stopped during the call to crash (its last words: demo server: crashing on purpose); "
        "it restarts on the next call"
    )
    assert connection.status().state == "stopped"
    assert tools["demo__echo"].invoke({"text": "again"}).content == '{"result": "echo: again"}'
    assert (connection.status().state, connection.starts) == ("running", 2)


def test_a_server_that_cannot_restart_says_so_and_the_tool_is_not_called(servers, tmp_path) -> None:
    script = tmp_path / "once.py"
    script.write_text(
        "import os, runpy, sys\n"
        f"flag = {str(tmp_path / 'ran')!r}\n"
        "if os.path.exists(flag): sys.exit('second start refused')\n"
        "open(flag, 'w').close()\n"
        f"sys.argv = ['demo']; runpy.run_path({demo_entry()['args'][0]!r}, run_name='__main__')\n",
        encoding="utf-8",
    )
    tools, _ = start(servers, {"once": {"command": sys.executable, "args": [str(script)]}})
    with pytest.raises(ToolError, match="stopped during the call to crash"):
        tools["once__crash"].invoke({})
    with pytest.raises(
        ToolError, match=r"^MCP server 'once' failed to start: .*second start refused.*; echo was not called$"
    ):
        tools["once__echo"].invoke({"text": "x"})


def test_an_http_error_status_is_named(servers) -> None:
    class Refuse(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.send_response(401)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    with ThreadingHTTPServer(("127.0.0.1", 0), Refuse) as http:
        threading.Thread(target=http.serve_forever, daemon=True).start()
        url = f"http://127.0.0.1:{http.server_address[1]}/mcp"
        _, found = start(servers, {"locked": {"url": url, "startupTimeout": 10}})
        http.shutdown()
    (error,) = found.errors
    assert error.startswith("MCP server 'locked' failed to start: ") and error.endswith("(HTTP 401)")


def test_changed_settings_restart_the_server_and_retire_the_old_tools(servers) -> None:
    old_tools, _ = start(servers, {"demo": demo_entry()})
    new_tools, found = start(servers, {"demo": demo_entry(timeout=5)})
    assert new_tools["demo__echo"].connection is not old_tools["demo__echo"].connection
    assert new_tools["demo__echo"].invoke({"text": "new"}).content == '{"result": "echo: new"}'
    with pytest.raises(ToolError, match=r"^MCP server 'demo' was reconfigured; rebuild the tool catalogue; echo was"):
        old_tools["demo__echo"].invoke({"text": "old"})
    assert found.servers[0].status().state == "running"


def test_a_disabled_server_is_listed_but_never_started(servers) -> None:
    tools, found = start(servers, {"off": {"command": "sparrow-no-such-command", "disabled": True}})
    assert (tools, found.errors) == ({}, ())
    assert found.servers[0].status().line() == "off [stdio: sparrow-no-such-command] disabled"
