"""The recorder: every event is saved before it is passed on; deltas only on request; failures stop the run."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import pytest

from agent_core.events import Event, ModelDelta, ModelFinished, RunFinished, StepStarted
from agent_core.runtime.sessions import config_from_agent
from agent_core.store import SessionNotFound, SessionStore, record_events
from agent_core.store.log import EventLog
from agent_core.store.sessions import WAITS_AFTER
from tests.store.helpers import arithmetic_agent, every_event_type, persisted


@dataclass(frozen=True)
class Counted(EventLog):
    """The store's log, showing ``seen`` each batch before appending it."""

    seen: Callable[[Sequence[Event]], object]

    def append(self, session_id: str, events: Sequence[Event]) -> int:
        self.seen(events)
        return super().append(session_id, events)


def test_each_event_is_saved_before_the_consumer_sees_it(store: SessionStore) -> None:
    agent = arithmetic_agent()
    session = store.sessions.create(config_from_agent(agent))
    seen: list[Event] = []
    for event in record_events(store, session.id, agent.run("What is 6*7?")):
        seen.append(event)
        assert store.log.events(session.id) == persisted(seen)
    assert isinstance(seen[-1], RunFinished) and seen[-1].status == "completed"


def test_deltas_are_kept_only_when_asked_and_then_batched(store: SessionStore) -> None:
    events = every_event_type()
    plain, with_deltas = store.sessions.create(), store.sessions.create()
    assert list(record_events(store, plain.id, events)) == events
    assert store.log.events(plain.id) == persisted(events)
    assert list(record_events(store, with_deltas.id, events, persist_deltas=True)) == events
    assert store.log.events(with_deltas.id) == events


def test_a_consumer_that_stops_early_leaves_a_resumable_run(store: SessionStore) -> None:
    agent = arithmetic_agent()
    session = store.sessions.create()
    stream = record_events(store, session.id, agent.run("What is 6*7?"))
    for event in stream:
        if isinstance(event, StepStarted) and event.step == 2:
            break
    stream.close()  # what a browser refresh does to a running generator
    stored = store.log.events(session.id)
    assert [e.type for e in stored][-1] == "step_started"
    interrupted = store.runs.interrupted(session.id)
    assert interrupted is not None and interrupted.question == "What is 6*7?"


def test_a_failed_write_stops_the_run_and_closes_the_source(store: SessionStore) -> None:
    closed: list[bool] = []

    def source() -> Iterator[Event]:
        try:
            yield from every_event_type()
        finally:
            closed.append(True)

    with pytest.raises(SessionNotFound):
        next(record_events(store, "ses_gone", source()))
    assert closed == [True]


def test_deltas_between_events_do_not_cost_a_write_each(store: SessionStore, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    monkeypatch.setattr(store, "log", Counted(store.access, lambda evs: calls.append(len(evs))))
    session = store.sessions.create()
    deltas = [ModelDelta(run_id="r", step=1, text=t) for t in "abc"]
    events = [*every_event_type()[:2], *deltas, *every_event_type()[2:]]
    list(record_events(store, session.id, events, persist_deltas=True))
    after = len(every_event_type()) - 4  # events after the model_finished
    assert calls == [1, 1, 5, *[1] * after]  # the 4 deltas (3 + the sample's own) go with that model_finished


def test_grouped_writes_each_burst_before_the_run_waits(store: SessionStore, monkeypatch: pytest.MonkeyPatch) -> None:
    batches: list[list[str]] = []
    monkeypatch.setattr(store, "log", Counted(store.access, lambda evs: batches.append([e.type for e in evs])))
    agent = arithmetic_agent()
    session = store.sessions.create(config_from_agent(agent))
    seen: list[Event] = []
    for event in record_events(store, session.id, agent.run("What is 6*7?"), grouped=True):
        seen.append(event)
        if event.type in WAITS_AFTER:  # the run waits (or ends) next: everything so far is stored
            assert store.log.events(session.id) == persisted(seen)
    assert batches == [
        ["run_started", "step_started"],
        ["model_finished", "tool_started"],
        ["tool_finished", "step_started"],
        ["model_finished", "final_answer", "run_finished"],
    ]
    assert store.log.events(session.id) == persisted(seen)


def test_a_grouped_run_stopped_early_keeps_what_it_emitted(store: SessionStore) -> None:
    session = store.sessions.create()
    stream = record_events(store, session.id, arithmetic_agent().run("What is 6*7?"), grouped=True)
    seen = []
    for event in stream:
        seen.append(event)
        if isinstance(event, ModelFinished):
            break
    stream.close()  # type: ignore[attr-defined]
    assert [e.type for e in store.log.events(session.id)] == ["run_started", "step_started", "model_finished"]
    assert store.log.events(session.id) == persisted(seen)
