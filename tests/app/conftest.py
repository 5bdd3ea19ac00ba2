"""AppTest fixtures: the fake LLM (tests/conftest.py gives every test fresh cached resources)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from agent_core.store import SessionStore
from agent_core.testing import FakeOpenAIServer
from agent_core.testing.rule_llm import rule_reply


@pytest.fixture
def fake_llm(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAIServer]:
    """The rule-driven fake LLM on 127.0.0.1, configured through OPENAI_BASE_URL like a real endpoint."""
    with FakeOpenAIServer(rule_reply) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-apptest-key")
        yield server


@pytest.fixture
def store() -> Iterator[SessionStore]:
    """The app's own store ($SPARROW_DATA_DIR is a fresh directory per test), opened beside the app and closed after."""
    opened = SessionStore.open()
    yield opened
    opened.close()
