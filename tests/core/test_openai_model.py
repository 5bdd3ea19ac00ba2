"""The OpenAI-compatible model through the real ``openai`` client against the fake HTTP server."""

from __future__ import annotations

import socket
import threading
import time

import pytest

from agent_core import Agent, CancelToken
from agent_core.events import ModelFinished
from agent_core.models import ModelError, OpenAIChatModel
from agent_core.models.chat import Completion, ModelRequest, TextChunk, complete
from agent_core.testing import FakeOpenAIServer, Reply
from tests.core.helpers import answer, react

HELLO = [{"role": "user", "content": "hello"}]


def model_for(server: FakeOpenAIServer, **options) -> OpenAIChatModel:
    options.setdefault("api_key", "sk-test")
    options.setdefault("timeout", 5)
    return OpenAIChatModel("gpt-4o-mini", base_url=server.base_url, **options)


def test_streaming_text_with_usage() -> None:
    with FakeOpenAIServer([Reply("Hello there, friend.", usage=(11, 4))]) as server:
        items = list(model_for(server).stream(ModelRequest(HELLO)))
    chunks = [i.text for i in items if isinstance(i, TextChunk)]
    completion = items[-1]
    assert chunks == ["Hello ", "there, ", "friend."]
    assert isinstance(completion, Completion)
    assert (completion.text, completion.finish_reason) == ("Hello there, friend.", "stop")
    assert (completion.usage.prompt_tokens, completion.usage.completion_tokens, completion.usage.estimated) == (
        11,
        4,
        False,
    )
    assert completion.ttft_ms is not None and completion.ttft_ms <= completion.latency_ms
    assert server.requests[0]["stream_options"] == {"include_usage": True}


def test_non_streaming_mode() -> None:
    with FakeOpenAIServer([Reply("Whole reply.", reasoning="thinking", usage=(5, 2))]) as server:
        items = list(model_for(server, streaming=False).stream(ModelRequest(HELLO)))
    assert len(items) == 1
    assert (items[0].text, items[0].reasoning, items[0].usage.prompt_tokens) == ("Whole reply.", "thinking", 5)
    assert server.requests[0]["stream"] is False


def test_missing_usage_is_estimated_by_the_loop() -> None:
    with FakeOpenAIServer([Reply(answer("t", "hi"), omit_usage=True)]) as server:
        events = list(Agent(model_for(server)).run("hello"))
    finished = next(e for e in events if isinstance(e, ModelFinished))
    assert finished.usage.estimated is True and finished.usage.prompt_tokens > 0


def test_reasoning_content_is_captured_when_streaming() -> None:
    with FakeOpenAIServer([Reply("Answer.", reasoning="Let me think step by step.")]) as server:
        items = list(model_for(server).stream(ModelRequest(HELLO)))
    assert [i.text for i in items if isinstance(i, TextChunk) and i.channel == "reasoning"] == [
        "Let ",
        "me ",
        "think ",
        "step ",
        "by ",
        "step.",
    ]
    assert items[-1].reasoning == "Let me think step by step."


def test_streamed_tool_calls_are_reassembled() -> None:
    calls = (
        ("date_calculator", {"operation": "add", "date": "2024-05-20", "days": 150}),
        ("calculator", {"expression": "1"}),
    )
    with FakeOpenAIServer([Reply(tool_calls=calls)]) as server:
        completion = complete(model_for(server), ModelRequest(HELLO, tools=[]))
    assert [(c.id, c.name, c.arguments) for c in completion.tool_calls] == [
        ("call_1", "date_calculator", '{"operation": "add", "date": "2024-05-20", "days": 150}'),
        ("call_2", "calculator", '{"expression": "1"}'),
    ]
    assert completion.finish_reason == "tool_calls"


def test_stop_sequences_are_sent_and_honoured() -> None:
    text = react("t", "calculator", expression="1") + "\nObservation: 5"
    with FakeOpenAIServer([text]) as server:
        completion = complete(model_for(server), ModelRequest(HELLO, stop=["\nObservation:"]))
    assert completion.text == react("t", "calculator", expression="1")
    assert server.requests[0]["stop"] == ["\nObservation:"]


@pytest.mark.parametrize("status", [429, 500, 503])
def test_transient_errors_are_retried(status: int) -> None:
    with FakeOpenAIServer([Reply(status=status), Reply(status=status), "recovered"]) as server:
        completion = complete(model_for(server, max_retries=3), ModelRequest(HELLO))
    assert completion.text == "recovered"
    assert len(server.requests) == 3


@pytest.mark.parametrize("streaming", [True, False])
def test_a_reply_says_which_failed_attempts_the_client_retried(streaming: bool) -> None:
    replies = [Reply(status=503), Reply(status=429), "recovered", "first time"]
    with FakeOpenAIServer(replies) as server:
        model = model_for(server, max_retries=3, streaming=streaming)
        retried = complete(model, ModelRequest(HELLO))
        clean = complete(model, ModelRequest(HELLO))
    assert (retried.text, retried.retried_after) == ("recovered", ("503", "429"))
    assert (clean.text, clean.retried_after) == ("first time", ())


def test_an_attempt_that_got_no_reply_in_time_is_named_a_lost_connection() -> None:
    with FakeOpenAIServer([Reply("late", delay=2.0), "on time"]) as server:
        completion = complete(model_for(server, max_retries=2, timeout=0.5), ModelRequest(HELLO))
    assert (completion.text, completion.retried_after) == ("on time", ("connection",))


def test_rate_limit_after_retries_is_explained() -> None:
    with FakeOpenAIServer([Reply(status=429, text="slow down")] * 3) as server, pytest.raises(ModelError) as caught:
        complete(model_for(server, max_retries=2), ModelRequest(HELLO))
    assert caught.value.kind == "rate_limit"
    assert str(caught.value) == (
        f"{server.base_url} kept rate-limiting the request (429) after retries. Server said: slow down"
    )


def test_server_error_after_retries_is_explained() -> None:
    with FakeOpenAIServer([Reply(status=503, text="overloaded")] * 2) as server, pytest.raises(ModelError) as caught:
        complete(model_for(server, max_retries=1), ModelRequest(HELLO))
    assert (
        str(caught.value)
        == f"{server.base_url} failed with a server error (503) after retries. Server said: overloaded"
    )


def test_bad_key_is_explained() -> None:
    with FakeOpenAIServer(["never"], api_key="sk-right") as server, pytest.raises(ModelError) as caught:
        complete(model_for(server, api_key="sk-wrong"), ModelRequest(HELLO))
    assert caught.value.kind == "auth"
    assert str(caught.value) == (
        f"{server.base_url} rejected the API key (401). Check OPENAI_API_KEY. Server said: Incorrect API key provided"
    )


def test_unknown_model_is_explained() -> None:
    with FakeOpenAIServer(["never"]) as server:
        model = OpenAIChatModel("gpt-9", base_url=server.base_url, api_key="k")
        with pytest.raises(ModelError) as caught:
            complete(model, ModelRequest(HELLO))
    assert caught.value.kind == "not_found"
    assert str(caught.value).startswith(f"Model 'gpt-9' was not found at {server.base_url} (404).")


def test_refused_connection_is_explained() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    model = OpenAIChatModel("m", base_url=f"http://127.0.0.1:{port}/v1", max_retries=0, timeout=2)
    with pytest.raises(ModelError) as caught:
        complete(model, ModelRequest(HELLO))
    assert caught.value.kind == "connection"
    assert str(caught.value).startswith(f"Cannot connect to http://127.0.0.1:{port}/v1: connection failed or refused")


def test_stalled_server_times_out() -> None:
    with FakeOpenAIServer([Reply("never finishes", stall=True)]) as server:
        started = time.perf_counter()
        with pytest.raises(ModelError) as caught:
            list(model_for(server, timeout=0.5, max_retries=0).stream(ModelRequest(HELLO)))
        elapsed = time.perf_counter() - started
    assert elapsed < 3
    assert caught.value.kind in ("timeout", "connection")
    assert "timed out" in str(caught.value) or "broke off" in str(caught.value)


def test_slow_first_byte_times_out_with_a_clear_message() -> None:
    with FakeOpenAIServer([Reply("late", delay=3)]) as server, pytest.raises(ModelError) as caught:
        complete(model_for(server, timeout=0.4, max_retries=0), ModelRequest(HELLO))
    assert caught.value.kind == "timeout"
    assert str(caught.value) == f"{server.base_url} did not answer within 0.4 s (timed out)."


def test_cancel_interrupts_a_stalled_stream() -> None:
    with FakeOpenAIServer([Reply("never finishes", stall=True)]) as server:
        cancel = CancelToken()
        threading.Timer(0.3, cancel.cancel).start()
        started = time.perf_counter()
        with pytest.raises(ModelError) as caught:
            list(model_for(server, timeout=20, max_retries=0).stream(ModelRequest(HELLO, cancel=cancel)))
        assert time.perf_counter() - started < 3
    assert caught.value.kind == "cancelled"


def test_servers_that_reject_stream_options_still_work() -> None:
    def responder(body: dict) -> Reply:
        if "stream_options" in body:
            return Reply(status=400, text="Unrecognized request argument supplied: stream_options")
        return Reply("fine", omit_usage=True)

    with FakeOpenAIServer(responder) as server:
        model = model_for(server)
        assert complete(model, ModelRequest(HELLO)).text == "fine"
        assert complete(model, ModelRequest(HELLO)).usage is None
    assert ["stream_options" in r for r in server.requests] == [True, False, False]


def test_list_models_for_test_connection() -> None:
    with FakeOpenAIServer([], models=["b-model", "a-model"]) as server:
        assert model_for(server).list_models() == ["a-model", "b-model"]


def test_configuration_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
    monkeypatch.setenv("SPARROW_MODEL", "qwen2.5:7b")
    model = OpenAIChatModel()
    assert (model.name, model.endpoint) == ("qwen2.5:7b", "http://127.0.0.1:1/v1")


def test_no_configuration_is_a_clear_error() -> None:
    with pytest.raises(ModelError) as caught:
        OpenAIChatModel()
    assert caught.value.kind == "config"
    assert str(caught.value).startswith("No model endpoint configured: set OPENAI_API_KEY")


def test_the_key_never_shows_in_repr() -> None:
    model = OpenAIChatModel("m", api_key="sk-very-secret-123", base_url="http://127.0.0.1:1/v1")
    assert "sk-very-secret" not in repr(model) and "sk-very-secret" not in str(vars(model).get("name"))
