"""The Tools page lists the MCP servers of the app's configuration, their state and their tools."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.mcp.conftest import reference_server, require_sdk

APP = str(Path(__file__).resolve().parents[2] / "app.py")


@pytest.fixture
def mcp_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """SPARROW_MCP_CONFIG naming the reference time server and a server that cannot start; stopped afterwards."""
    require_sdk()
    from agent_core.tools.mcp.tools import shared_servers

    entries = {"time": {"command": reference_server("mcp-server-time")}, "broken": {"command": "no-such-mcp-server"}}
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": entries}), encoding="utf-8")
    monkeypatch.setenv("SPARROW_MCP_CONFIG", str(path))
    yield path
    shared_servers().close()


def test_tools_page_lists_mcp_servers_and_their_tools(mcp_config: Path) -> None:
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    at.switch_page("pages/tools.py").run()
    assert not at.exception, at.exception
    labels = [e.label for e in at.expander]
    assert "`time__get_current_time` · mcp:time" in labels and "`time__convert_time` · mcp:time" in labels
    assert "MCP servers" in [h.value for h in at.subheader]
    markdown = "\n".join(m.value for m in at.markdown)
    assert "**time** · `stdio` · running" in markdown and "**broken** · `stdio` · failed" in markdown
    assert "`time__get_current_time` (get_current_time), `time__convert_time` (convert_time)" in markdown
    captions = "\n".join(c.value for c in at.caption)
    assert "asks for approval before each call" in captions
    errors = [e.value for e in at.error]
    assert "MCP server 'broken' failed to start: command not found: 'no-such-mcp-server'" in errors
    assert "command not found: 'no-such-mcp-server'" in errors


def test_tools_page_explains_how_to_add_servers_when_there_are_none(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    at.switch_page("pages/tools.py").run()
    assert not at.exception, at.exception
    assert any("No MCP servers configured" in c.value for c in at.caption)
