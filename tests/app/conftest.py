"""AppTest fixtures: a fresh store and fresh cached resources for every test, and the fake LLM."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import streamlit as st

from agent_core.testing import FakeOpenAIServer
from agent_core.testing.rule_llm import rule_reply


@pytest.fixture(autouse=True)
def _fresh_resources() -> Iterator[None]:
    """Each test gets its own store (SPARROW_DATA_DIR is a new temp dir per test) and live-run registry."""
    st.cache_resource.clear()
    yield
    st.cache_resource.clear()


@pytest.fixture
def fake_llm(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAIServer]:
    """The rule-driven fake LLM on 127.0.0.1, configured through OPENAI_BASE_URL like a real endpoint."""
    with FakeOpenAIServer(rule_reply) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-apptest-key")
        yield server
