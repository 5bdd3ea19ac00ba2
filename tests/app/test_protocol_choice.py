"""The sidebar's protocol choice reaches the run: protocol ``json`` through AppTest against the fake LLM."""

from __future__ import annotations

from agent_core.testing import FakeOpenAIServer
from agent_core.testing.rule_llm import TWO_TOOLS
from tests.app.test_chat_page import ask, open_app, texts
from tests.core.helpers import TWO_TOOLS_ANSWER


def test_the_json_protocol_chosen_in_the_sidebar_answers_with_a_schema(fake_llm: FakeOpenAIServer) -> None:
    at = open_app()
    at.radio(key="cfg_protocol.en").set_value("json").run()
    at = ask(at, TWO_TOOLS)
    assert TWO_TOOLS_ANSWER in texts(at)
    assert "completed · 3 steps" in texts(at)
    assert {(f or {}).get("type") for f in fake_llm.response_formats} == {"json_schema"}
    assert not at.error and not at.exception
