"""Real reference servers from PyPI over stdio: mcp-server-time, and mcp-server-git on a throwaway repository."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_core.tools import ToolError
from agent_core.tools.mcp import parse_config
from agent_core.tools.tool import ToolArgumentsError
from tests.mcp.conftest import reference_server, require_sdk

require_sdk()


def catalogue(servers, entries: dict) -> dict:
    found = servers.tools(parse_config({"mcpServers": entries}), taken=["calculator", "get_current_time"])
    assert found.errors == ()
    return {t.name: t for t in found.tools}, found


def test_time_server_tools_join_with_their_schemas_and_answer(servers) -> None:
    tools, found = catalogue(servers, {"time": {"command": reference_server("mcp-server-time")}})
    assert list(tools) == ["time__get_current_time", "time__convert_time"]
    assert found.origins == {"time__get_current_time": "mcp:time", "time__convert_time": "mcp:time"}
    now = tools["time__get_current_time"]
    assert now.needs_approval and now.remote_name == "get_current_time"
    assert now.parameters["required"] == ["timezone"] and now.parameters["properties"]["timezone"]["type"] == "string"
    output = now.invoke({"timezone": "Asia/Tokyo"})
    assert json.loads(output.content)["timezone"] == "Asia/Tokyo"
    assert output.details["datetime"].endswith("+09:00")
    converted = tools["time__convert_time"].invoke(
        {"source_timezone": "Etc/UTC", "time": "12:00", "target_timezone": "Asia/Kolkata"}
    )
    assert json.loads(converted.content)["target"]["datetime"].split("T")[1].startswith("17:30")


def test_time_server_errors_and_bad_arguments_are_clear(servers) -> None:
    tools, _ = catalogue(servers, {"time": {"command": reference_server("mcp-server-time"), "trust": True}})
    now = tools["time__get_current_time"]
    assert not now.needs_approval
    with pytest.raises(ToolError, match=r"MCP server 'time' reports an error from get_current_time: .*Nowhere/Land"):
        now.invoke({"timezone": "Nowhere/Land"})
    with pytest.raises(ToolArgumentsError, match="'timezone' is a required property"):
        now.invoke({})
    with pytest.raises(ToolArgumentsError, match="timezone: 5 is not of type 'string'"):
        now.invoke({"timezone": 5})


def test_git_server_reads_a_throwaway_repository(servers, git_repo: Path) -> None:
    command = reference_server("mcp-server-git")
    tools, found = catalogue(servers, {"git": {"command": command, "args": ["--repository", str(git_repo)]}})
    assert {"git__git_status", "git__git_log", "git__git_diff_unstaged", "git__git_show"} <= set(tools)
    status = tools["git__git_status"].invoke({"repo_path": str(git_repo)})
    assert "draft.txt" in status.content
    log = tools["git__git_log"].invoke({"repo_path": str(git_repo)})
    assert "Add the first notes" in log.content
    with pytest.raises(ToolError, match="outside the allowed repository"):
        tools["git__git_log"].invoke({"repo_path": str(git_repo.parent)})
    (server,) = found.servers
    assert server.status().state == "running" and ("git__git_log", "git_log") in server.status().tools
