"""The app facing hostile endpoints and content: one plain sentence, never a traceback or a remote image."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from agent_core.testing import FakeOpenAIServer
from tests.app.test_chat_page import ask, open_app, texts
from tests.core.test_endpoint_errors import HTML, WEB_PAGE


@pytest.fixture
def web_page(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAIServer]:
    """A base URL that serves a web page with status 200."""
    with FakeOpenAIServer(web_page=HTML) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-apptest-key")
        yield server


def test_test_connection_names_a_web_page(web_page: FakeOpenAIServer) -> None:
    at = open_app()
    at.button(key="cfg_test").click().run()
    assert [e.value for e in at.error] == [
        f"Connection failed: {web_page.base_url} {WEB_PAGE} (for example http://localhost:11434/v1 for Ollama)."
    ]
    assert not at.exception


def test_a_question_to_a_web_page_gets_the_same_sentence(web_page: FakeOpenAIServer) -> None:
    at = ask(open_app(), "What is 6 * 7?")
    assert f"{web_page.base_url} {WEB_PAGE}" in texts(at)
    assert "internal error" not in texts(at).lower()
    assert len(web_page.requests) == 1
