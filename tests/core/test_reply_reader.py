"""Reading one reply: its outcome is on the reader (no exception carries text), its timing is the model's own."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent_core import Agent
from agent_core.engine.protocols import get_protocol
from agent_core.engine.repeats import RepeatGuard
from agent_core.engine.streaming import ReplyReader
from agent_core.events import AnswerRequested, CallRepeated, ModelDelta, ModelFinished, ToolFinished
from agent_core.guards.limits import CancelToken, RunStopped
from agent_core.guards.masking import _may_hold_secret, default_check
from agent_core.models.chat import Completion, ModelError, ModelOutput, ModelRequest, TextChunk
from agent_core.testing import ScriptedModel
from agent_core.tools import ToolSet, builtin_tools, calculator
from agent_core.tools.runner import CallRequest

REQUEST = ModelRequest([{"role": "user", "content": "q"}])
OLD_CANDIDATE = re.compile(r"[^\s\"',;<>\[\]…]{12,}|(?i:pass|pwd|key|token|secret|credential|auth|://)")
"""The secret pre-check as it was written before (one regex with an alternation): the new one must agree."""


class BreaksMidway:
    """A model that writes two chunks, then fails."""

    name = "breaks"

    def stream(self, request: ModelRequest) -> Iterator[ModelOutput]:
        """Two chunks, then a ModelError."""
        yield TextChunk("Thought: half ")
        yield TextChunk("a reply")
        raise ModelError("connection", "the connection dropped")


def reader_for(model: object, *, interval: float = 0.0, cancel: CancelToken | None = None) -> ReplyReader:
    return ReplyReader(
        model,  # type: ignore[arg-type]
        REQUEST,
        get_protocol("react"),
        run_id="r",
        step=1,
        cancel=cancel or CancelToken(),
        interval=interval,
        check=default_check,
    )


def test_a_failure_is_kept_on_the_reader_with_what_was_written() -> None:
    reader = reader_for(BreaksMidway())
    shown = "".join(d.text for d in reader.deltas())  # the failure is not raised out of the reading
    assert isinstance(reader.failure, ModelError) and reader.failure.kind == "connection"
    assert reader.completion is None
    assert reader.text == shown == "Thought: half a reply"
    assert not hasattr(reader.failure, "partial_text")  # nothing travels on the exception


def test_a_cancel_mid_reply_is_a_failure_too() -> None:
    cancel = CancelToken()
    reader = reader_for(ScriptedModel(["Thought: one two three four"]), cancel=cancel)
    deltas = reader.deltas()
    next(deltas)
    cancel.cancel()
    list(deltas)
    assert isinstance(reader.failure, RunStopped) and reader.failure.status == "cancelled"
    assert reader.text.startswith("Thought:")


def test_the_loop_reports_the_cut_off_reply_and_ends_with_the_failure() -> None:
    events = list(Agent(BreaksMidway(), [calculator]).run("q"))  # type: ignore[arg-type]
    finished = next(e for e in events if isinstance(e, ModelFinished))
    assert (finished.text, finished.error) == ("Thought: half a reply", "the connection dropped")
    assert (events[-1].status, events[-1].error) == ("error", "the connection dropped")  # type: ignore[attr-defined]


def test_time_spent_by_the_consumer_is_not_the_models() -> None:
    reader = reader_for(ScriptedModel(["Thought: " + "word " * 20]), interval=0.0)
    slept = 0
    for _ in reader.deltas():
        time.sleep(0.02)  # a slow viewer
        slept += 1
    assert isinstance(reader.completion, Completion)
    assert slept >= 10 and reader.latency_ms < 0.02 * 1000 * slept / 2, (slept, reader.latency_ms)
    assert reader.ttft_ms is not None and reader.ttft_ms <= reader.latency_ms


def test_deltas_are_batched_by_the_interval() -> None:
    reader = reader_for(ScriptedModel(["Thought: " + "word " * 40]), interval=60.0)
    deltas = list(reader.deltas())
    assert len(deltas) <= 2 and all(isinstance(d, ModelDelta) for d in deltas)
    assert "".join(d.text for d in deltas) == reader.text


@given(st.text(alphabet=st.sampled_from("aKkPpSsſ ,:/\"'-_.0123456789éİ\u212a"), max_size=40))
def test_the_secret_pre_check_passes_everything_the_old_one_did(text: str) -> None:
    if OLD_CANDIDATE.search(text):
        assert _may_hold_secret(text)


@pytest.mark.parametrize("text", ["my PASSWORD is", "AUTH: x", "https://h", "abcdefghijkl", "api-Key", "ſecret"])
def test_the_secret_pre_check_sees_names_in_any_case(text: str) -> None:
    assert _may_hold_secret(text)


CALL = 'Thought: add\nAction: calculator\nAction Input: {"expression": "1 + 1"}'


def guard_after_one_repeat(policy: str) -> RepeatGuard:
    events = list(Agent(ScriptedModel([CALL, CALL, "Thought: ok\nFinal Answer: 2"]), builtin_tools()).run("q"))
    assert sum(isinstance(e, CallRepeated) for e in events) == 1
    return RepeatGuard(ToolSet(builtin_tools()), policy, "r", events)


def test_a_repeat_is_answered_with_a_list_of_events_and_the_narrowing_is_a_plain_value() -> None:
    guard = guard_after_one_repeat("redirect")
    run, repeats = guard.split([CallRequest("call_1", "calculator", {"expression": "1 + 1"})])
    answered = guard.answer(3, repeats)
    assert run == [] and [type(e) for e in answered] == [CallRepeated, ToolFinished]
    guard.stop_if_asked(repeats)  # redirect: the run goes on
    outcome = guard.after_step(3, repeats, ["calculator"], str)
    assert outcome is not None
    narrowing, event = outcome
    assert isinstance(event, AnswerRequested) and event.repeats == 2 and narrowing.repeated_tools == ("calculator",)


def test_under_stop_the_first_repeat_is_reported_then_the_run_ends() -> None:
    guard = guard_after_one_repeat("stop")
    _, repeats = guard.split([CallRequest("call_1", "calculator", {"expression": "1 + 1"})])
    assert [type(e) for e in guard.answer(3, repeats)] == [CallRepeated]
    with pytest.raises(RunStopped, match="repeated a call it made at step 1"):
        guard.stop_if_asked(repeats)


def test_a_new_call_is_not_a_repeat() -> None:
    guard = guard_after_one_repeat("redirect")
    call = CallRequest("call_1", "calculator", {"expression": "2 + 2"})
    run, repeats = guard.split([call])
    assert run == [call] and repeats == [] and guard.answer(3, repeats) == []
    assert guard.after_step(3, repeats, ["calculator"], str) is None
