"""The mcpServers file: where it is found, what each entry may say, and the clear errors for what it may not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_core.runtime.catalog import tool_catalog
from agent_core.tools import mcp as mcp_package
from agent_core.tools.mcp import McpConfigError, find_config, load_config, load_mcp_tools, parse_config


def write(path: Path, data: object) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_found_by_option_then_variable_then_working_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert find_config(None, environ={}) is None
    local = write(tmp_path / "mcp.json", {"mcpServers": {}})
    assert find_config(None, environ={}) == tmp_path / "mcp.json"
    from_env = write(tmp_path / "env.json", {"mcpServers": {}})
    assert find_config(None, environ={"SPARROW_MCP_CONFIG": str(from_env)}) == from_env
    given = write(tmp_path / "given.json", {"mcpServers": {}})
    assert find_config(given, environ={"SPARROW_MCP_CONFIG": str(from_env)}) == given
    assert find_config(None, environ={}) == local  # with neither given, the working directory's file again


def test_a_named_file_that_does_not_exist_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(McpConfigError, match=r"--mcp-config names .*nope.json.*not a file"):
        find_config(tmp_path / "nope.json", environ={})
    with pytest.raises(McpConfigError, match="SPARROW_MCP_CONFIG names"):
        find_config(None, environ={"SPARROW_MCP_CONFIG": str(tmp_path / "gone.json")})


def test_stdio_and_http_entries_with_sparrow_settings(tmp_path: Path) -> None:
    data = {
        "mcpServers": {
            "time": {"command": "mcp-server-time", "args": ["--local-timezone", "UTC"], "trust": True},
            "remote": {"url": "https://mcp.example.invalid/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}},
            "tools": {"command": "run-it", "cwd": "sub", "env": {"KEY": "${env:SECRET}"}, "timeout": 5},
            "off": {"command": "x", "disabled": True, "autoApprove": ["a"], "startupTimeout": 3},
        }
    }
    config = load_config(write(tmp_path / "mcp.json", data), environ={"TOKEN": "t0k", "SECRET": "s3"})
    assert config.errors == ()
    time, remote, tools, off = config.servers.values()
    assert (time.transport, time.target, time.trust, time.timeout) == (
        "stdio",
        "mcp-server-time --local-timezone UTC",
        True,
        30.0,
    )
    assert (remote.transport, remote.target, remote.headers, remote.trust) == (
        "http",
        "https://mcp.example.invalid/mcp",
        {"Authorization": "Bearer t0k"},
        False,
    )
    assert (tools.cwd, tools.env, tools.timeout) == (str(tmp_path / "sub"), {"KEY": "s3"}, 5.0)
    assert (off.disabled, off.startup_timeout) == (True, 3.0)


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({}, "give either 'command'"),
        ({"command": "a", "url": "http://x"}, "not both"),
        ({"url": "ftp://files"}, "must start with http:// or https://"),
        ({"url": "http://x/ws", "type": "websocket"}, "transport type 'websocket' is not supported"),
        ({"command": "a", "timeout": 0}, "timeout: Input should be greater than 0"),
        ({"command": "a", "args": "not a list"}, "args"),
        ({"command": "a", "env": {"K": "${MISSING_VAR}"}}, "the environment variable MISSING_VAR is not set"),
        ("just a string", "its settings must be a JSON object"),
    ],
)
def test_a_bad_entry_is_reported_and_the_others_still_load(entry: object, message: str) -> None:
    config = parse_config({"mcpServers": {"bad": entry, "good": {"command": "ok"}}}, environ={})
    assert list(config.servers) == ["good"]
    assert len(config.errors) == 1
    assert config.errors[0].startswith("MCP server 'bad': ") and message in config.errors[0]


@pytest.mark.parametrize(
    ("text", "message"),
    [("{not json", "is not valid JSON"), ('{"servers": {}}', "needs an object 'mcpServers'"), ("[]", "mcpServers")],
)
def test_an_unusable_file_is_one_clear_error(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(McpConfigError, match=message):
        load_config(path)
    assert message in load_mcp_tools(path).errors[0]


def test_no_configuration_means_no_mcp_tools_and_nothing_started(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    found = load_mcp_tools()
    assert (found.tools, found.errors, found.servers) == ((), (), ())
    catalog = tool_catalog(web=False, plugins=False)
    assert catalog.mcp_servers == () and not any(o.startswith("mcp:") for o in catalog.origins.values())


def test_a_bad_file_shows_in_the_catalogue_errors_and_the_rest_still_works(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SPARROW_MCP_CONFIG", str(tmp_path / "missing.json"))
    catalog = tool_catalog(web=False, plugins=False)
    assert "calculator" in [t.name for t in catalog.tools]
    assert any("SPARROW_MCP_CONFIG names" in e for e in catalog.errors)


def test_without_the_sdk_servers_are_listed_as_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mcp_package, "sdk_installed", lambda: False)
    found = load_mcp_tools(parse_config({"mcpServers": {"time": {"command": "mcp-server-time"}}}, source="mcp.json"))
    assert found.tools == ()
    assert found.errors == (
        "MCP servers are configured in mcp.json but the mcp package is not installed "
        "(pip install 'sparrow-agent[mcp]')",
    )
    (server,) = found.servers
    assert server.status().state == "unavailable"
    assert server.status().line().startswith("time [stdio: mcp-server-time] unavailable: the mcp package")
