"""Imported copies: a session from a session file is marked with ``imported_at``; nothing made here is."""

from __future__ import annotations

import json
import time
from types import SimpleNamespace

import pytest

from agent_core.runtime.sessions import config_from_agent, fork_before_run
from agent_core.store import SessionFileError, SessionStore, export_session, import_session, sessions
from tests.store.helpers import arithmetic_agent, run


@pytest.fixture
def session_id(store: SessionStore) -> str:
    """A session of the user's own, with one run and a snapshot."""
    agent = arithmetic_agent()
    session = store.sessions.create(config_from_agent(agent))
    run(store, session.id, agent, "What is 6*7?")
    store.snapshots.save(session.id, "answered")
    return session.id


def test_an_imported_session_is_marked_with_the_time_of_its_import(store: SessionStore, session_id: str) -> None:
    before = time.time()
    copy = import_session(store, export_session(store, session_id))
    assert copy.imported_at is not None and before <= copy.imported_at <= time.time()
    assert store.sessions.get(copy.id).imported_at == copy.imported_at
    assert {s.id: s.imported_at for s in store.sessions.list()} == {session_id: None, copy.id: copy.imported_at}


def test_a_new_session_and_forks_of_an_imported_copy_are_not_imported(store: SessionStore, session_id: str) -> None:
    copy = import_session(store, export_session(store, session_id))
    assert store.sessions.create().imported_at is None
    [snapshot] = store.snapshots.list(copy.id)
    assert store.snapshots.fork(snapshot.id).imported_at is None
    run_id = store.log.events(copy.id)[0].run_id
    assert fork_before_run(store, copy.id, run_id).imported_at is None


def test_the_mark_is_not_in_the_file_and_a_copy_of_a_copy_is_marked_anew(
    store: SessionStore, session_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    ticks = iter([1000.0, 2000.0])
    monkeypatch.setattr(sessions, "time", SimpleNamespace(time=lambda: next(ticks)))  # one import per tick, no sleep
    first = import_session(store, export_session(store, session_id))
    data = export_session(store, first.id)
    assert "imported_at" not in data.decode()
    second = import_session(store, data)
    assert second.imported_at is not None and first.imported_at is not None
    assert second.id != first.id and (first.imported_at, second.imported_at) == (1000.0, 2000.0)


def test_a_file_that_claims_to_be_imported_already_is_refused(store: SessionStore, session_id: str) -> None:
    document = json.loads(export_session(store, session_id))
    document["session"]["imported_at"] = 1.0
    with pytest.raises(SessionFileError, match=r"session\.imported_at"):
        import_session(store, json.dumps(document))
    assert [s.id for s in store.sessions.list()] == [session_id]
