"""Endpoints that are not what they claim: one sentence naming the cause, one request, never "internal error"."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_core import Agent
from agent_core.models import ModelError, OpenAIChatModel
from agent_core.models.chat import ModelRequest, complete
from agent_core.models.replies import describe_body
from agent_core.testing import FakeOpenAIServer, Reply
from tests.core.test_cli import sparrow

HELLO = [{"role": "user", "content": "hello"}]
HTML = "<!doctype html><html><head><title>Welcome</title></head><body><h1>It works!</h1></body></html>"
WEB_PAGE = "returned a web page, not an OpenAI-compatible API — most base URLs end in /v1"
NOT_JSON = "answered with something that is not JSON"
NOT_CHAT = "returned JSON that is not a chat completion"
NO_CHOICES = "returned a chat completion with no choices"
BAD_STREAM = "held invalid data"

BODIES = [
    (Reply(raw_body=HTML), WEB_PAGE),
    (Reply(raw_body="<html><body>nginx</body></html>", content_type="text/plain"), WEB_PAGE),
    (Reply(raw_body="   <?xml version='1.0'?><a/>", content_type="application/xml"), WEB_PAGE),
    (Reply(raw_body=HTML, content_type="application/json"), WEB_PAGE),
    (Reply(raw_body="OK", content_type="text/plain"), NOT_JSON),
    (Reply(raw_body="Hello from Flask!", content_type=""), NOT_JSON),
    (Reply(raw_body="{not json", content_type="application/json"), NOT_JSON),
    (Reply(raw_body='{"hello": "world"}', content_type="application/json"), NOT_CHAT),
    (Reply(raw_body="[1, 2, 3]", content_type="application/json"), NOT_CHAT),
    (Reply(raw_body='"just a string"', content_type="application/json"), NOT_CHAT),
    (Reply(raw_body='{"object": "list", "data": []}', content_type="application/json"), NOT_CHAT),
    (Reply(raw_body='{"choices": [{"text": "legacy completion"}]}', content_type="application/json"), NOT_CHAT),
    (Reply(raw_body='{"object": "chat.completion", "choices": []}', content_type="application/json"), NO_CHOICES),
]
STREAMS = [
    (Reply("hello there", bad_chunk="{not json"), BAD_STREAM),
    (Reply("hello there", bad_chunk="[1,"), BAD_STREAM),
    (Reply("hello there", bad_chunk="<html>"), BAD_STREAM),
    (Reply("hello there", bad_chunk='{"choices": [{"delta": "oops"}]'), BAD_STREAM),
]


def model_for(server: FakeOpenAIServer, streaming: bool) -> OpenAIChatModel:
    return OpenAIChatModel("gpt-4o-mini", base_url=server.base_url, api_key="k", timeout=5, streaming=streaming)


def one_sentence(message: str) -> None:
    assert "\n" not in message and "internal error" not in message.lower() and "Traceback" not in message
    assert message.endswith(".") and len(message) < 400, message


@pytest.mark.parametrize("streaming", [True, False])
@pytest.mark.parametrize(("reply", "cause"), BODIES)
def test_a_body_that_is_not_a_chat_completion_is_named_once(streaming: bool, reply: Reply, cause: str) -> None:
    with FakeOpenAIServer([reply] * 5) as server:
        with pytest.raises(ModelError) as caught:
            complete(model_for(server, streaming), ModelRequest(HELLO))
        assert len(server.requests) == 1  # no retries
    assert cause in str(caught.value) and caught.value.kind == "protocol"
    one_sentence(str(caught.value))


@pytest.mark.parametrize(("reply", "cause"), STREAMS)
def test_invalid_json_in_a_stream_is_named_once(reply: Reply, cause: str) -> None:
    with FakeOpenAIServer([reply] * 5) as server:
        with pytest.raises(ModelError) as caught:
            complete(model_for(server, True), ModelRequest(HELLO))
        assert len(server.requests) == 1
    assert cause in str(caught.value)
    one_sentence(str(caught.value))


def test_a_json_error_with_status_200_is_the_server_s_own_words() -> None:
    body = json.dumps({"error": {"message": "model is loading"}})
    reply = Reply(raw_body=body, content_type="application/json")
    expected = "answered with an error: model is loading"
    with FakeOpenAIServer([reply]) as server, pytest.raises(ModelError, match=expected):
        complete(model_for(server, False), ModelRequest(HELLO))


def test_a_server_that_ignores_stream_true_still_works() -> None:
    whole = {
        "id": "c1",
        "object": "chat.completion",
        "created": 0,
        "model": "gpt-4o-mini",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "Hi!"}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4},
    }
    reply = Reply(raw_body=json.dumps(whole), content_type="application/json")
    with FakeOpenAIServer([reply]) as server:
        completion = complete(model_for(server, True), ModelRequest(HELLO))
    assert (completion.text, completion.finish_reason, completion.usage.completion_tokens) == ("Hi!", "stop", 1)


@pytest.mark.parametrize("protocol", ["react", "tools"])
def test_the_agent_ends_with_the_sentence_after_one_request(protocol: str) -> None:
    with FakeOpenAIServer(web_page=HTML) as server:
        events = list(Agent(model_for(server, True), [], protocol=protocol).run("hi"))
        assert len(server.requests) == 1  # no format retries blaming the model
    finished = events[-1]
    assert finished.status == "error" and WEB_PAGE in finished.error
    one_sentence(finished.error)


def test_the_cli_prints_the_same_sentence() -> None:
    with FakeOpenAIServer(web_page=HTML) as server:
        result = sparrow(server, "ask", "--no-save", "hi")
        assert len(server.requests) == 1
    assert result.returncode != 0
    assert f"{server.base_url} {WEB_PAGE}" in result.stdout + result.stderr
    assert "internal error" not in (result.stdout + result.stderr).lower()


def test_listing_models_of_a_web_page_names_it() -> None:
    with FakeOpenAIServer(web_page=HTML) as server, pytest.raises(ModelError) as caught:
        model_for(server, True).list_models()
    assert str(caught.value) == f"{server.base_url} {WEB_PAGE} (for example http://localhost:11434/v1 for Ollama)."


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(
    content_type=st.sampled_from(["text/html", "text/plain", "application/json", "", "application/octet-stream"]),
    body=st.one_of(
        st.binary(max_size=300),
        st.text(max_size=300),
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.text(max_size=10),
            lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=8), c, max_size=3),
            max_leaves=8,
        ).map(json.dumps),
    ),
)
def test_any_unexpected_body_gets_one_sentence(content_type: str, body: bytes | str) -> None:
    error = describe_body("http://host/v1", content_type, body, model="m")
    assert error.kind in ("protocol", "bad_request")
    assert "\n" not in str(error) and "internal error" not in str(error).lower()
