"""MCP configurations pasted as Claude Code, Cursor and Cline users write them: found, expanded, trusted per tool."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest

from agent_core.tools.mcp import McpConfigError, find_config, load_config, parse_config
from tests.mcp.conftest import DEMO, require_sdk

# Claude Code's project file, as `claude mcp add --scope project` writes it (type, ${VAR:-default} in args and env).
CLAUDE_CODE = """{
  "mcpServers": {
    "demo": {
      "type": "stdio",
      "command": "${PYTHON}",
      "args": ["${DEMO_DIR:-.}/demo_server.py"],
      "env": {"TEAM": "${TEAM:-birds}", "API_KEY": "${API_KEY}"}
    }
  }
}"""

# Cursor's .cursor/mcp.json: a remote SSE server as a bare url, and one with type "sse" and a header.
CURSOR = """{
  "mcpServers": {
    "events": {"url": "${SSE_URL}"},
    "typed": {"type": "sse", "url": "${SSE_URL}", "headers": {"Authorization": "Bearer ${TOKEN:-none}"}}
  }
}"""

# Cline / Roo Code: autoApprove lists the tools that run without asking; alwaysAllow-style keys are ignored.
CLINE = {
    "mcpServers": {
        "demo": {"command": sys.executable, "args": [str(DEMO)], "autoApprove": ["add"], "disabled": False},
        "off": {"command": "not-installed", "disabled": True, "autoApprove": []},
    }
}


def test_claude_code_and_cursor_project_files_are_found_after_mcp_json(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".cursor").mkdir()
    (tmp_path / ".cursor" / "mcp.json").write_text(CURSOR, encoding="utf-8")
    assert find_config(None, environ={}) == tmp_path / ".cursor" / "mcp.json"
    (tmp_path / ".mcp.json").write_text(CLAUDE_CODE, encoding="utf-8")
    assert find_config(None, environ={}) == tmp_path / ".mcp.json"
    (tmp_path / "mcp.json").write_text('{"mcpServers": {}}', encoding="utf-8")
    assert find_config(None, environ={}) == tmp_path / "mcp.json"


def test_variables_and_defaults_are_expanded_in_command_args_url_env_and_headers(tmp_path: Path) -> None:
    path = tmp_path / ".mcp.json"
    path.write_text(CLAUDE_CODE, encoding="utf-8")
    found = load_config(path, environ={"PYTHON": "/usr/bin/python3", "API_KEY": "k-1", "TEAM": ""})
    demo = found.servers["demo"]
    assert (demo.command, demo.args, demo.env) == (
        "/usr/bin/python3",
        ("./demo_server.py",),
        {"TEAM": "birds", "API_KEY": "k-1"},
    )
    cursor = parse_config(json.loads(CURSOR), environ={"SSE_URL": "http://127.0.0.1:9/sse"})
    assert {name: (s.transport, s.url, s.headers) for name, s in cursor.servers.items()} == {
        "events": ("sse", "http://127.0.0.1:9/sse", {}),
        "typed": ("sse", "http://127.0.0.1:9/sse", {"Authorization": "Bearer none"}),
    }


def test_a_missing_variable_without_default_names_it_and_the_others_still_load() -> None:
    found = parse_config(json.loads(CLAUDE_CODE), environ={"PYTHON": "python3"})
    assert found.servers == {} and found.errors == ("MCP server 'demo': the environment variable API_KEY is not set",)
    bad = parse_config({"mcpServers": {"x": {"url": "${HOST:-nowhere}/mcp"}}}, environ={})
    assert bad.errors == ("MCP server 'x': url 'nowhere/mcp' must start with http:// or https://",)
    with pytest.raises(McpConfigError):
        parse_config({"servers": {}})
    typed = parse_config({"mcpServers": {"x": {"type": "sse", "command": "server"}}})
    assert typed.errors == ("MCP server 'x': type 'sse' needs a 'url', not a 'command'",)


def test_auto_approve_trusts_the_listed_tools_only(servers) -> None:
    require_sdk()
    found = servers.tools(parse_config(CLINE), taken=[])
    assert found.errors == ()
    asks = {t.remote_name: t.needs_approval for t in found.tools}
    assert asks["add"] is False and asks["echo"] is True and asks["fail"] is True
    assert next(t for t in found.tools if t.remote_name == "add").invoke({"a": 2, "b": 40}).content == '{"result": 42}'


def test_an_sse_server_pasted_from_cursor_is_called(servers, sse_demo: str) -> None:
    require_sdk()
    found = servers.tools(parse_config(json.loads(CURSOR), environ={"SSE_URL": sse_demo, "TOKEN": "t"}), taken=[])
    assert found.errors == (), found.errors
    status = found.servers[0].status().line()
    assert status.startswith(f"events [sse: {sse_demo}] running"), status
    tools = {t.name: t for t in found.tools}
    assert tools["events__add"].invoke({"a": 40, "b": 2}).content == '{"result": 42}'
    assert tools["events__echo"].needs_approval is True


def test_the_docs_example_parses() -> None:
    text = textwrap.dedent(CLAUDE_CODE)
    assert parse_config(json.loads(text), environ={"PYTHON": "python3", "API_KEY": "x"}).errors == ()
