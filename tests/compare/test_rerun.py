"""Run again: a turn's question asked again in a fork (earlier turns kept), the original untouched."""

from __future__ import annotations

import pytest

from agent_core.examples import example_name, open_example
from agent_core.runtime.rerun import rerun_turn
from agent_core.store import SessionStore
from agent_core.testing import Reply, ScriptedModel
from agent_core.tools import builtin_tools
from agent_core.views.compare import compare_turns
from agent_core.views.metrics import turn_metrics
from agent_core.views.transcript import Transcript


def test_rerun_forks_before_the_turn_and_leaves_the_original_alone() -> None:
    store = SessionStore.open("sqlite://")
    original = open_example(store, "dates")
    before = store.log.events(original.id)
    first, second = Transcript.from_events(before).turns
    model = ScriptedModel(
        [
            Reply.call("date_calculator", operation="difference", date="2024-10-17", other_date="2025-01-01"),
            "76 days.",
        ],
        name="other-model",
    )
    fork, events = rerun_turn(store, original.id, second.run_id, model, builtin_tools(), protocol="tools")
    assert list(events)[-1].status == "completed"  # type: ignore[attr-defined]
    model.assert_complete()
    assert store.log.events(original.id) == before
    info = store.sessions.get(fork.id)
    assert info.parent_id == original.id and example_name(info) is None and info.config.protocol == "tools"
    turns = Transcript.from_events(store.log.events(fork.id)).turns
    assert [t.question for t in turns] == [first.question, second.question]
    assert turns[0].run_id == first.run_id and turns[1].model == "other-model"
    assert first.answer in str(model.requests[0].messages)  # the fork remembers the earlier turn
    comparison = compare_turns(second, turns[1], turn_metrics(second), turn_metrics(turns[1]))
    # the same calls, but the thoughts differ and "76 days." is not the original's answer: never shown as the same
    assert [p.changed_fields for p in comparison.steps] == [("thought",), ("thought", "answer")]
    assert [p.calls[0].differs for p in comparison.steps[:1]] == [False]
    assert {r.name for r in comparison.metrics if r.differs} >= {"model", "protocol"}


def test_rerun_of_an_unknown_turn_says_so() -> None:
    store = SessionStore.open("sqlite://")
    original = open_example(store, "parallel")
    with pytest.raises(KeyError, match="has no run 'run_nope'"):
        rerun_turn(store, original.id, "run_nope", ScriptedModel([]), protocol="react")
