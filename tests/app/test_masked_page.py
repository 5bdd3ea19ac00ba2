"""What the browser receives is masked too: a secret the model repeats never reaches the page's elements."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from agent_core.testing import FakeOpenAIServer
from tests.core.test_one_masker import REPLY, SECRETS

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def test_the_page_shows_no_secret_the_model_streams(monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeOpenAIServer([f"Thought: I repeat it.\nFinal Answer: {REPLY}"]) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-apptest-key")
        at = AppTest.from_file(APP, default_timeout=30)
        at.run()
        at.chat_input(key="question").set_value("what is my key?").run()
    assert not at.exception
    sent = str([getattr(node, "proto", None) for node in _walk(at._tree)])  # every element as sent to the browser
    assert "as asked." in sent and "…[masked]" in sent  # the reply reached the page, masked
    assert [s for s in SECRETS if s[6:] in sent] == []


def _walk(node):  # type: ignore[no-untyped-def]
    yield node
    for child in getattr(node, "children", {}).values():
        yield from _walk(child)
