"""Time limits hold while a model streams; max_tokens is sent; a complete reply without [DONE] is kept."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest

from agent_core import Agent, AgentSettings
from agent_core.events import Event, ModelDelta, ModelFinished
from agent_core.guards.limits import CancelToken
from agent_core.models import ModelError, OpenAIChatModel
from agent_core.models.chat import ChatModel, ModelRequest, TextChunk
from agent_core.testing import FakeOpenAIServer, Reply, ScriptedModel
from tests.core.test_cli import sparrow

ENDLESS_TEXT = "Thought: I will keep writing forever "


def model_for(server: FakeOpenAIServer, *, timeout: float = 30.0) -> OpenAIChatModel:
    return OpenAIChatModel("gpt-4o-mini", base_url=server.base_url, api_key="sk-test", timeout=timeout)


@pytest.mark.parametrize("protocol", ["react", "tools"])
@pytest.mark.parametrize("chunk_delay", [0.0, 0.005, 0.2])
def test_an_endless_stream_stops_at_the_run_time_limit(protocol: str, chunk_delay: float) -> None:
    with FakeOpenAIServer([Reply(ENDLESS_TEXT, endless=True, chunk_delay=chunk_delay)]) as server:
        begin = time.perf_counter()
        events = list(Agent(model_for(server), [], protocol=protocol, time_limit=1.0).run("go"))
        elapsed = time.perf_counter() - begin
    finished = events[-1]
    assert finished.status == "timeout", finished
    assert finished.error == "time limit of 1 s reached"
    streamed = "".join(e.text for e in events if isinstance(e, ModelDelta))
    assert streamed.startswith("Thought: I")
    assert elapsed < 4.0, elapsed  # 1 s limit; generous for a shared machine


def test_a_stalled_stream_ends_at_the_time_limit_not_the_request_timeout() -> None:
    with FakeOpenAIServer([Reply("Thought: one", stall=True)]) as server:
        begin = time.perf_counter()
        events = list(Agent(model_for(server, timeout=60), [], time_limit=1.0).run("go"))
        elapsed = time.perf_counter() - begin
    assert events[-1].status == "timeout"
    assert "time limit of 1 s reached" in events[-1].error
    assert elapsed < 4.0, elapsed


def test_an_in_process_model_that_keeps_writing_is_stopped_too() -> None:
    model = ScriptedModel([Reply("Thought: " + "word " * 100_000, chunk_delay=0.001)])
    begin = time.perf_counter()
    events = list(Agent(model, [], time_limit=0.5).run("go"))
    assert events[-1].status == "timeout"
    assert time.perf_counter() - begin < 3.0


@pytest.mark.parametrize("streaming", [True, False])
def test_max_tokens_is_sent_and_configurable(streaming: bool) -> None:
    final = Reply("Thought: ok\nFinal Answer: 42")
    with FakeOpenAIServer([final, final, final]) as server:
        model = OpenAIChatModel("gpt-4o-mini", base_url=server.base_url, api_key="k", streaming=streaming)
        list(Agent(model, []).run("a"))
        list(Agent(model, [], max_tokens=77).run("b"))
        list(Agent(model, [], max_tokens=None).run("c"))
    sent = [r.get("max_tokens", "absent") for r in server.requests]
    assert sent == [AgentSettings().max_tokens, 77, "absent"]
    assert AgentSettings().max_tokens == 4096


def test_max_tokens_must_be_positive() -> None:
    with pytest.raises(ValueError, match="max_tokens must be at least 1"):
        AgentSettings(max_tokens=0)


def test_cli_max_tokens_option() -> None:
    with FakeOpenAIServer(["Thought: ok\nFinal Answer: 42"]) as server:
        result = sparrow(server, "ask", "--no-save", "--max-tokens", "123", "hi")
    assert result.returncode == 0, result.stderr
    assert server.requests[0]["max_tokens"] == 123


@pytest.mark.parametrize("protocol", ["react", "tools"])
def test_a_complete_reply_without_done_is_kept(protocol: str) -> None:
    text = "Thought: done\nFinal Answer: 42" if protocol == "react" else "42"
    with FakeOpenAIServer([Reply(text, no_done=True)]) as server:
        begin = time.perf_counter()
        events = list(Agent(model_for(server, timeout=30), [], protocol=protocol).run("go"))
        elapsed = time.perf_counter() - begin
    assert (events[-1].status, events[-1].final_answer) == ("completed", "42")
    assert elapsed < 5.0, elapsed  # not the 30 s request timeout


def test_a_reply_without_finish_reason_or_done_is_not_taken_for_complete() -> None:
    with FakeOpenAIServer([Reply("Thought: half a rep", stall=True)]) as server:
        events = list(Agent(model_for(server, timeout=1.0), [], time_limit=None).run("go"))
    assert events[-1].status == "error"
    assert "did not answer within 1 s" in events[-1].error


def _cut_reply(events: list[Event]) -> ModelFinished:
    finished = [e for e in events if isinstance(e, ModelFinished)]
    assert len(finished) == 1
    return finished[0]


CUT_TEXT = "Thought: the answer is short.\nFinal Answer: 42\n" + "and more words " * 400


class _DroppingModel:
    """Writes the start of a reply, then its connection drops."""

    name = "dropping"

    def stream(self, request: ModelRequest) -> Iterator[TextChunk]:
        """Two pieces of the reply, then a network error."""
        yield TextChunk(CUT_TEXT[:60])
        yield TextChunk(CUT_TEXT[60:80])
        raise ModelError("connection", "the connection to the model server dropped")


@pytest.mark.parametrize("how", ["stop", "time limit", "broken stream"])
def test_a_reply_cut_off_midway_is_kept_counted_as_an_estimate_and_never_acted_on(how: str) -> None:
    """Stop, the time limit or a dropped connection mid-reply: the words so far stay on the step, their tokens are
    estimated (the provider processed the prompt and wrote them), and a complete-looking answer in them is not
    taken as the run's answer."""
    cancel = CancelToken()
    model: ChatModel = (
        _DroppingModel() if how == "broken stream" else ScriptedModel([Reply(CUT_TEXT, chunk_delay=0.005)])
    )
    if how == "stop":
        threading.Timer(0.4, cancel.cancel).start()
    events = list(Agent(model, [], time_limit=0.4 if how == "time limit" else None).run("go", cancel=cancel))
    reply = _cut_reply(events)
    assert events[-1].status == {"stop": "cancelled", "time limit": "timeout", "broken stream": "error"}[how]
    assert reply.text.startswith("Thought: the answer is short.") and len(reply.text) < len(CUT_TEXT)
    assert reply.final_answer is None and not reply.tool_calls and events[-1].final_answer is None
    assert reply.usage.estimated and reply.usage.prompt_tokens > 0 and reply.usage.completion_tokens > 0


def test_a_call_that_fails_before_a_word_counts_nothing() -> None:
    with FakeOpenAIServer([Reply(status=500)]) as server:
        model = OpenAIChatModel("gpt-4o-mini", base_url=server.base_url, api_key="k", max_retries=0)
        events = list(Agent(model, []).run("go"))
    reply = _cut_reply(events)
    assert reply.text == "" and reply.usage.total_tokens == 0 and events[-1].status == "error"
