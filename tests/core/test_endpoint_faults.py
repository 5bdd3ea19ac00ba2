"""Endpoint faults named right: a stream of empty choices, or one cut off mid-reply, says so at once."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_core import Agent
from agent_core.events import ModelFinished, RunFinished
from agent_core.models import OpenAIChatModel
from agent_core.testing import FakeOpenAIServer, Reply
from agent_core.tools import builtin_tools

WORDS = st.lists(st.text("abcdefghijklmnop", min_size=1, max_size=8), min_size=8, max_size=30).map(
    lambda words: "Thought: " + " ".join(words)
)
"""Replies of at least nine words: nine chunks or more before the finish reason."""
PROTOCOLS = st.sampled_from(["react", "tools", "json"])
FAST = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def run_against(reply: Reply, protocol: str) -> tuple[list, FakeOpenAIServer]:
    """One run on the fake server whose only scripted reply is ``reply`` (a retry would find none)."""
    with FakeOpenAIServer([reply]) as server:
        model = OpenAIChatModel("fake-model", base_url=server.base_url, api_key="sk-test-0000000000", max_retries=0)
        events = list(Agent(model, builtin_tools(), protocol=protocol).run("hi"))
    return events, server


@FAST
@given(text=WORDS, protocol=PROTOCOLS, usage=st.booleans())
def test_a_stream_of_empty_choices_is_named_at_once(text: str, protocol: str, usage: bool) -> None:
    events, server = run_against(Reply(text=text, empty_choices=True, omit_usage=not usage), protocol)
    finished = events[-1]
    assert isinstance(finished, RunFinished) and finished.status == "error"
    assert "with no choice in any (`choices: []`)" in (finished.error or "")
    assert "unusable format" not in (finished.error or "")
    assert len(server.requests) == 1
    assert finished.error is not None and finished.error.count(". ") == 0  # one sentence


@FAST
@given(text=WORDS, protocol=st.sampled_from(["react", "json"]), cut=st.integers(2, 8))
def test_a_reply_cut_off_mid_stream_is_named_and_its_text_kept(text: str, protocol: str, cut: int) -> None:
    events, server = run_against(Reply(text=text, drop_after=cut), protocol)
    finished = events[-1]
    assert isinstance(finished, RunFinished) and finished.status == "error"
    assert "ended in the middle of the reply" in (finished.error or "")
    assert "(no finish reason, no [DONE])" in (finished.error or "")
    assert "unusable format" not in (finished.error or "")
    assert len(server.requests) == 1
    step = [e for e in events if isinstance(e, ModelFinished)]
    assert len(step) == 1 and step[0].text and text.startswith(step[0].text)


@FAST
@given(cut=st.integers(2, 5))
def test_a_tool_call_cut_off_mid_stream_is_named(cut: int) -> None:
    reply = Reply.call("calculator", expression="1 + 2 + 3 + 4 + 5 + 6 + 7 + 8 + 9 + 10 + 11 + 12")
    events, server = run_against(Reply(tool_calls=reply.tool_calls, drop_after=cut + 1), "tools")
    assert events[-1].status == "error" and "ended in the middle of the reply" in events[-1].error
    assert len(server.requests) == 1


def test_a_whole_reply_still_ends_well_without_done() -> None:
    events, _ = run_against(Reply(text="Thought: done\nFinal Answer: 4", no_done=True), "react")
    assert events[-1].status == "completed"
