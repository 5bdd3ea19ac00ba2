"""Cached and reasoning tokens from the provider's usage: recorded, stored only when set, priced, exported."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime

import pytest

from agent_core import Agent
from agent_core.events import ModelFinished, RunStarted, Usage, event_from_dict
from agent_core.formatting import format_usage
from agent_core.models import OpenAIChatModel
from agent_core.models.chat import ModelRequest
from agent_core.testing import FakeOpenAIServer, Reply
from agent_core.trace_export import export_trace
from agent_core.views.metrics import run_metrics
from tests.core.helpers import answer

OPENAI_DETAILS = {
    "prompt_tokens_details": {"cached_tokens": 1024, "audio_tokens": 0},
    "completion_tokens_details": {"reasoning_tokens": 64, "audio_tokens": 0},
}
DEEPSEEK_DETAILS = {"prompt_cache_hit_tokens": 900, "prompt_cache_miss_tokens": 300}


@pytest.mark.parametrize("streaming", [True, False])
@pytest.mark.parametrize(
    ("details", "expected"),
    [
        (OPENAI_DETAILS, Usage(1200, 100, False, 1024, 64)),
        (DEEPSEEK_DETAILS, Usage(1200, 100, False, 900, 0)),
        ({}, Usage(1200, 100)),
        ({"prompt_tokens_details": None, "completion_tokens_details": None}, Usage(1200, 100)),
    ],
)
def test_the_providers_usage_details_are_read(details: dict, expected: Usage, streaming: bool) -> None:
    reply = Reply("Hi.", usage=(1200, 100), usage_details=details)
    with FakeOpenAIServer([reply]) as server:
        model = OpenAIChatModel("gpt-4o-mini", base_url=server.base_url, api_key="sk-test", streaming=streaming)
        completion = list(model.stream(ModelRequest([{"role": "user", "content": "hi"}])))[-1]
    assert completion.usage == expected


def test_zero_details_are_stored_as_zeros_and_set_ones_come_back() -> None:
    plain_usage = ModelFinished(run_id="r", step=1, usage=Usage(10, 2)).to_dict()["usage"]
    assert plain_usage == {
        "prompt_tokens": 10,
        "completion_tokens": 2,
        "estimated": False,
        "cached_tokens": 0,
        "reasoning_tokens": 0,
    }
    cached = ModelFinished(run_id="r", step=1, usage=Usage(10, 2, False, 8, 1))
    assert cached.to_dict()["usage"] == {**plain_usage, "cached_tokens": 8, "reasoning_tokens": 1}
    assert event_from_dict(cached.to_dict()) == cached
    assert Usage(10, 2, False, 8, 1) + Usage(5, 1, False, 2, 0) == Usage(15, 3, False, 10, 1)


def test_a_run_with_cached_tokens_is_priced_at_the_cached_rate_and_shows_them() -> None:
    reply = Reply(answer("done", "42"), usage=(2_000_000, 100_000), usage_details=OPENAI_DETAILS)
    with FakeOpenAIServer([reply], models=["gpt-4o"]) as server:
        model = OpenAIChatModel("gpt-4o", base_url=server.base_url, api_key="sk-test")
        events = list(Agent(model).run("?"))
    june = datetime(2025, 6, 2, 10, tzinfo=UTC).timestamp()
    events = [_as_at_openai(e) if isinstance(e, RunStarted) else e for e in events]  # the fake stands in for it
    events = [e if not isinstance(e, ModelFinished) else _at(e, june) for e in events]
    metrics = run_metrics(events)
    fresh, cached = 2_000_000 - 1024, 1024
    assert metrics.usage.cached_tokens == cached and metrics.usage.reasoning_tokens == 64
    assert metrics.cost == pytest.approx((fresh * 2.50 + cached * 1.25 + 100_000 * 10.00) / 1e6)
    assert format_usage(metrics.usage) == "2.0M (1.0k cached) → 100k (64 reasoning) tokens"
    otel = export_trace(events, "otel", session_id="s")
    assert '"gen_ai.usage.cache_read.input_tokens"' in otel and '"intValue": "1024"' in otel
    assert "1.0k cached" in export_trace(events, "md") and "1.0k cached" in export_trace(events, "html")


def _as_at_openai(event: RunStarted) -> RunStarted:
    return dataclasses.replace(event, endpoint="https://api.openai.com/v1")


def _at(event: ModelFinished, ts: float) -> ModelFinished:
    data = event.to_dict()
    data["ts"] = ts
    return event_from_dict(data)  # type: ignore[return-value]
