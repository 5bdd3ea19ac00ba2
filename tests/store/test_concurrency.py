"""Many writers, one database (an SQLite file, or PostgreSQL): no "database is locked", no lost or duplicated events."""

from __future__ import annotations

import multiprocessing
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from agent_core.events import Event, StepStarted
from agent_core.store import SessionStore
from agent_core.store.runs import beat_all

WRITERS = 20
EVENTS_EACH = 40


def step_events(writer: int, count: int) -> list[Event]:
    """Distinguishable events: the run id names the writer, the step numbers count up."""
    return [StepStarted(run_id=f"run_w{writer}", ts=writer * 1000.0 + i, step=i + 1) for i in range(count)]


def write_one_by_one(store: SessionStore, session_id: str, events: list[Event], start: threading.Barrier) -> None:
    """Append each event in its own transaction, starting together with the other writers."""
    start.wait(timeout=30)
    for event in events:
        store.log.append(session_id, [event])


def assert_complete(store: SessionStore, session_id: str, events: list[Event]) -> None:
    """The session holds exactly these events, numbered 1..n."""
    assert store.log.events(session_id) == events
    assert [e.seq for e in store.log.stored_events(session_id)] == list(range(1, len(events) + 1))


def test_twenty_threads_each_writing_their_own_session(file_db_url: str) -> None:
    store = SessionStore.open(file_db_url)
    sessions = [store.sessions.create().id for _ in range(WRITERS)]
    start = threading.Barrier(WRITERS)
    with ThreadPoolExecutor(WRITERS) as pool:
        futures = [
            pool.submit(write_one_by_one, store, sid, step_events(i, EVENTS_EACH), start)
            for i, sid in enumerate(sessions)
        ]
        for future in futures:
            future.result(timeout=60)  # re-raises any "database is locked"
    for i, sid in enumerate(sessions):
        assert_complete(store, sid, step_events(i, EVENTS_EACH))
    store.close()


def test_threads_sharing_one_session_get_unique_sequence_numbers(file_db_url: str) -> None:
    store = SessionStore.open(file_db_url)
    session_id = store.sessions.create().id
    start = threading.Barrier(8)
    with ThreadPoolExecutor(8) as pool:
        futures = [pool.submit(write_one_by_one, store, session_id, step_events(i, 25), start) for i in range(8)]
        for future in futures:
            future.result(timeout=60)
    stored = store.log.events(session_id)
    assert sorted((e.run_id, e.step) for e in stored if isinstance(e, StepStarted)) == sorted(
        (f"run_w{i}", s) for i in range(8) for s in range(1, 26)
    )
    assert [e.seq for e in store.log.stored_events(session_id)] == list(range(1, 8 * 25 + 1))
    store.close()


def _process_writer(url: str, writer: int, start: Any, results: Any) -> None:
    """In a child process: open the (maybe not yet created) database, make a session, write events one by one."""
    try:
        start.wait(timeout=30)
        store = SessionStore.open(url)
        session_id = store.sessions.create(title=f"writer {writer}").id
        for event in step_events(writer, EVENTS_EACH):
            store.log.append(session_id, [event])
        store.close()
        results.put((writer, session_id, None))
    except BaseException as exc:
        results.put((writer, None, f"{type(exc).__name__}: {exc}"))


def test_twenty_processes_creating_and_writing_one_new_database(empty_db_url: str) -> None:
    url = empty_db_url
    context = multiprocessing.get_context("fork")
    start, results = context.Barrier(WRITERS), context.Queue()
    processes = [context.Process(target=_process_writer, args=(url, i, start, results)) for i in range(WRITERS)]
    for process in processes:
        process.start()
    try:
        outcomes = sorted(results.get(timeout=60) for _ in processes)
    finally:
        for process in processes:
            process.join(timeout=10)
            if process.is_alive():
                process.kill()
    assert [error for _, _, error in outcomes] == [None] * WRITERS
    store = SessionStore.open(url)
    assert len(store.sessions.list()) == WRITERS
    for writer, session_id, _ in outcomes:
        assert store.sessions.get(session_id).title == f"writer {writer}"
        assert_complete(store, session_id, step_events(writer, EVENTS_EACH))
    store.close()


def test_an_in_memory_store_shared_by_threads_loses_and_doubles_nothing() -> None:
    """``sqlite://`` keeps its database in one connection: writers, readers and a heartbeat take turns on it.

    Before they did, a heartbeat's transaction began inside a writer's on the same connection ("cannot start a
    transaction within a transaction"), and its rollback undid the writer's events (CI saw a duplicated seq).
    """
    store = SessionStore.open("sqlite://")
    session_id = store.sessions.create().id
    start = threading.Barrier(8 + 2)
    stop = threading.Event()

    def beat() -> None:
        start.wait(timeout=30)
        while not stop.is_set():
            beat_all(store.engine, [(session_id, "run_x", "someone")], 1.0)

    def read() -> None:
        start.wait(timeout=30)
        while not stop.is_set():
            store.log.events(session_id)

    with ThreadPoolExecutor(8 + 2) as pool:
        others = [pool.submit(beat), pool.submit(read)]
        writers = [pool.submit(write_one_by_one, store, session_id, step_events(i, 25), start) for i in range(8)]
        try:
            for future in writers:
                future.result(timeout=60)
        finally:
            stop.set()
        for future in others:
            future.result(timeout=60)
    assert [e.seq for e in store.log.stored_events(session_id)] == list(range(1, 8 * 25 + 1))
    store.close()
