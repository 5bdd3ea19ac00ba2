"""A chat turn in the app that calls an MCP server's tool: approval first, then the result in the trace."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from agent_core.testing import FakeOpenAIServer
from tests.core.helpers import answer, react
from tests.mcp.conftest import demo_entry, require_sdk

APP = str(Path(__file__).resolve().parents[2] / "app.py")


@pytest.fixture
def demo_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """SPARROW_MCP_CONFIG naming the demo server (not trusted); the app's servers are stopped afterwards."""
    require_sdk()
    from agent_core.tools.mcp.tools import shared_servers

    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": {"demo": demo_entry()}}), encoding="utf-8")
    monkeypatch.setenv("SPARROW_MCP_CONFIG", str(path))
    yield
    shared_servers().close()


def test_a_chat_turn_asks_to_run_the_mcp_tool_then_shows_its_result(
    demo_server: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = [react("The demo server can echo.", "demo__echo", text="hello"), answer("It echoed.", "echo: hello")]
    with FakeOpenAIServer(script) as llm:
        monkeypatch.setenv("OPENAI_BASE_URL", llm.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-apptest-key")
        at = AppTest.from_file(APP, default_timeout=60)
        at.run()
        at.chat_input(key="question").set_value("Echo hello through the server.").run()
        assert not at.exception, at.exception
        page = "\n".join(str(m.value) for m in at.markdown)
        assert "The agent wants to run demo__echo. Allow it?" in page
        next(b for b in at.button if b.key and b.key.startswith("approve_")).click().run()
        assert not at.exception, at.exception
        shown = "\n".join(str(c.value) for c in [*at.markdown, *at.code])
    assert '{"result": "echo: hello"}' in shown
    assert "echo: hello" in shown
    assert llm.requests[1]["messages"][-1]["content"] == 'Observation: {"result": "echo: hello"}'
