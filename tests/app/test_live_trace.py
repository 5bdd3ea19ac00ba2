"""The app sends a run's spans live when OTEL_EXPORTER_OTLP_ENDPOINT is set (AppTest, fake LLM, local receiver)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from agent_core.testing import FakeOpenAIServer
from agent_core.trace_export.sending import close_all
from tests.app.test_chat_page import ask, open_app, texts

receiver_module = pytest.importorskip("tests.observability.otlp_receiver")


@pytest.fixture
def receiver(monkeypatch: pytest.MonkeyPatch) -> Iterator[object]:
    """An OTLP receiver the app is pointed at through the standard variables."""
    with receiver_module.OtlpReceiver() as running:
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", running.base_url)
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json")
        monkeypatch.setenv("OTEL_BSP_SCHEDULE_DELAY", "50")
        yield running
        close_all()


def test_a_chat_turn_is_sent_to_the_collector_with_its_session(fake_llm: FakeOpenAIServer, receiver: object) -> None:
    at = ask(open_app(), "What is 6 * 7?")
    assert "The result is 42." in texts(at)
    assert receiver.wait_for(lambda spans: len(spans) == 4)  # type: ignore[attr-defined]
    spans = receiver.spans()  # type: ignore[attr-defined]
    root = next(s for s in spans if s["parent"] is None)
    assert root["attributes"]["session.id"] == at.query_params["session"]
    assert root["attributes"]["user.id"] == "local"  # who started it: the single user of an app without sign-in
    assert sorted(s["attributes"]["openinference.span.kind"] for s in spans) == ["AGENT", "LLM", "LLM", "TOOL"]
    assert "input.value" not in root["attributes"]  # content only when the user opts in
