"""SessionStore: sessions, the append-only event log, snapshots, forks and interrupted-run detection."""

from __future__ import annotations

import dataclasses
import json

import pytest

from agent_core.events import EventFormatError, ModelDelta, RunStarted, StepStarted
from agent_core.runtime.sessions import config_from_agent
from agent_core.store import InterruptedRun, SessionConfig, SessionNotFound, SessionStore, SnapshotNotFound
from tests.store.helpers import arithmetic_agent, every_event_type, persisted, run, table_counts


def test_create_list_get_rename_delete(store: SessionStore) -> None:
    first = store.sessions.create(SessionConfig(model="m1", protocol="tools", settings={"max_steps": 3}))
    second = store.sessions.create(title="  My   notes \n")
    assert first.title == "New session" and second.title == "My notes"
    assert first.config == SessionConfig(model="m1", protocol="tools", settings={"max_steps": 3})
    assert [s.id for s in store.sessions.list()] == [second.id, first.id]
    assert store.sessions.get(first.id) == first

    renamed = store.sessions.rename(first.id, "Budget questions")
    assert renamed.title == "Budget questions" and renamed.updated_at >= first.updated_at
    assert [s.id for s in store.sessions.list(limit=1)] == [first.id]

    store.sessions.delete(first.id)
    assert [s.id for s in store.sessions.list()] == [second.id]
    for call in (store.sessions.get, store.sessions.delete, store.log.events, store.runs.interrupted):
        with pytest.raises(SessionNotFound, match="no session"):
            call(first.id)
    with pytest.raises(ValueError, match="empty"):
        store.sessions.rename(second.id, "   ")


def test_events_are_numbered_per_session_and_come_back_equal(store: SessionStore) -> None:
    a, b = store.sessions.create(), store.sessions.create()
    sample = every_event_type()
    assert store.log.append(a.id, sample[:3]) == 3
    assert store.log.append(b.id, sample[:1]) == 1
    assert store.log.append(a.id, sample[3:]) == len(sample)
    assert store.log.append(a.id, []) == len(sample)
    assert store.log.events(a.id) == sample
    assert [e.seq for e in store.log.stored_events(a.id)] == list(range(1, len(sample) + 1))
    assert store.log.events(a.id, upto_seq=2) == sample[:2]
    assert store.log.events(b.id) == sample[:1]
    assert store.sessions.get(a.id).last_seq == len(sample)
    with pytest.raises(SessionNotFound):
        store.log.append("ses_missing", sample[:1])


def test_a_damaged_row_is_named_never_half_read(store: SessionStore) -> None:
    session = store.sessions.create()
    store.log.append(session.id, every_event_type())
    with store.engine.begin() as conn:
        damage = 'UPDATE events SET payload = replace(payload, \'"step":1\', \'"step":"one"\') WHERE seq = 2'
        assert conn.exec_driver_sql(damage).rowcount == 1
    with pytest.raises(EventFormatError, match="step"):
        store.log.events(session.id)


def test_title_comes_from_the_first_question_and_a_rename_wins(store: SessionStore) -> None:
    agent = arithmetic_agent()
    session = store.sessions.create(config_from_agent(agent))
    run(store, session.id, agent, "What is 6*7?")
    run(store, session.id, agent, "Add 1 to that")
    assert store.sessions.get(session.id).title == "What is 6*7?"
    store.sessions.rename(session.id, "Arithmetic")
    run(store, session.id, agent, "What is 2*3?")
    assert store.sessions.get(session.id).title == "Arithmetic"


def test_a_recorded_run_is_stored_without_its_deltas(store: SessionStore) -> None:
    agent = arithmetic_agent()
    session = store.sessions.create(config_from_agent(agent))
    events = run(store, session.id, agent, "What is 6*7?")
    assert any(isinstance(e, ModelDelta) for e in events)
    assert store.log.events(session.id) == persisted(events)
    info = store.sessions.get(session.id)
    assert info.config.model == "fake-arith" and info.config.protocol == "react"
    assert info.config.settings == json.loads(json.dumps(dataclasses.asdict(agent.settings)))


def test_snapshots_are_immutable_and_forks_leave_the_original_alone(store: SessionStore) -> None:
    agent = arithmetic_agent()
    session = store.sessions.create(config_from_agent(agent))
    run(store, session.id, agent, "What is 6*7?")
    at_snapshot = store.log.events(session.id)
    snap = store.snapshots.save(session.id)
    named = store.snapshots.save(session.id, "after the first answer")
    assert (snap.name, snap.upto_seq, snap.title) == ("Snapshot 1", len(at_snapshot), "What is 6*7?")
    with pytest.raises(ValueError, match="already has a snapshot named"):
        store.snapshots.save(session.id, "after the first answer")

    run(store, session.id, agent, "Add 10 to that")
    store.sessions.rename(session.id, "Renamed later")
    assert store.snapshots.events(snap.id) == at_snapshot
    assert store.snapshots.get(snap.id) == snap

    fork = store.snapshots.fork(named.id)
    assert (fork.parent_id, fork.forked_from, fork.last_seq) == (session.id, named.id, len(at_snapshot))
    assert fork.title == "What is 6*7? (after the first answer)"
    assert store.log.events(fork.id) == at_snapshot
    original = store.log.events(session.id)
    run(store, fork.id, arithmetic_agent(), "What is 2*3?")
    assert store.log.events(session.id) == original
    assert [e.seq for e in store.log.stored_events(fork.id)][len(at_snapshot)] == len(at_snapshot) + 1
    assert [s.id for s in store.snapshots.list(session.id)] == [snap.id, named.id]
    assert store.snapshots.list(fork.id) == []


def test_deleting_a_session_removes_its_events_and_snapshots_but_not_its_forks(store: SessionStore) -> None:
    session = store.sessions.create()
    store.log.append(session.id, every_event_type())
    fork = store.snapshots.fork(store.snapshots.save(session.id).id)
    store.sessions.delete(session.id)
    assert table_counts(store.engine)["snapshots"] == 0
    assert table_counts(store.engine)["events"] == len(every_event_type())  # the fork's copy
    assert store.sessions.get(fork.id).parent_id is None
    assert store.log.events(fork.id) == every_event_type()


def test_deleting_a_snapshot(store: SessionStore) -> None:
    session = store.sessions.create()
    snap = store.snapshots.save(session.id, "empty")
    store.snapshots.delete(snap.id)
    assert store.snapshots.list(session.id) == []
    for call in (store.snapshots.get, store.snapshots.delete, store.snapshots.fork, store.snapshots.events):
        with pytest.raises(SnapshotNotFound):
            call(snap.id)


def test_an_interrupted_run_is_detected_until_it_finishes(store: SessionStore) -> None:
    session = store.sessions.create()
    assert store.runs.interrupted(session.id) is None
    sample = every_event_type("run_a")
    store.log.append(session.id, sample)
    assert store.runs.interrupted(session.id) is None
    started = RunStarted(run_id="run_b", ts=10.0, question="second?", model="m", protocol="react")
    store.log.append(session.id, [started, StepStarted(run_id="run_b", ts=11.0, step=1)])
    assert store.runs.interrupted(session.id) == InterruptedRun(
        run_id="run_b", question="second?", started_seq=len(sample) + 1, last_seq=len(sample) + 2, last_event_at=11.0
    )
    finished = dataclasses.replace(sample[-1], run_id="run_b")
    store.log.append(session.id, [finished])
    assert store.runs.interrupted(session.id) is None


def test_secret_settings_and_url_credentials_are_dropped_from_the_config() -> None:
    config = SessionConfig(
        model="m",
        base_url="https://user:sk-live-1234567890@api.example.com/v1?api-version=2&api_key=sk-live-1234567890",
        settings={"max_steps": 3, "api_key": "sk-live-1234567890", "nested": {"OPENAI_API_KEY": "x", "keep": 1}},
    )
    assert config.base_url == "https://api.example.com/v1?api-version=2"
    assert config.settings == {"max_steps": 3, "nested": {"keep": 1}}
