"""Runs are owned: one run at a time per session, heartbeats, cancel requests through the database, atomic resume."""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import event as sa_event
from sqlalchemy import update

from agent_core import Agent
from agent_core.cli import main
from agent_core.events import Event, RunFinished, RunStarted, StepStarted
from agent_core.models.chat import Message, ModelRequest
from agent_core.runtime.sessions import FollowedRun, NothingToResume, resume_run, run_in_session
from agent_core.store import SessionStore
from agent_core.store.runs import HEARTBEAT_S, RunOwner, RunOwners, SessionBusy, replica_id, this_process
from agent_core.store.tables import RunOwnerRow
from agent_core.testing import FunctionModel, Reply
from tests.core.helpers import answer
from tests.store.helpers import arithmetic_agent, run

_OWNERS = RunOwnerRow.__table__


def slow_agent(release: threading.Event) -> Agent:
    """An agent whose model answers only once ``release`` is set (or it is cancelled)."""

    def reply(messages: list[Message], request: ModelRequest) -> Reply:
        while not release.is_set() and not (request.cancel is not None and request.cancel.cancelled):
            release.wait(0.05)
        return Reply(text=answer("waited", "done"))

    return Agent(FunctionModel(reply, name="slow"))


@contextlib.contextmanager
def _released(release: threading.Event) -> Iterator[None]:
    """Let the slow model answer on the way out, even when an assertion failed (so no thread hangs)."""
    try:
        yield
    finally:
        release.set()


def consume(events: Iterator[Event]) -> list[Event]:
    """Every event of a run."""
    return list(events)


def wait_for(condition: object, what: str) -> None:
    """Poll ``condition()`` until it is true (a generous limit: the machine may be busy)."""
    deadline = time.monotonic() + 60
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def set_owner(store: SessionStore, session_id: str, run_id: str, owner: str, heartbeat: float) -> None:
    """Write a ``run_owners`` row by hand: a run owned by another replica (alive or dead)."""
    with store.engine.begin() as conn:
        conn.execute(_OWNERS.delete().where(_OWNERS.c.session_id == session_id))
        conn.execute(
            _OWNERS.insert().values(
                session_id=session_id, run_id=run_id, owner=owner, heartbeat=heartbeat, cancel_requested=False
            )
        )


def interrupted_session(store: SessionStore) -> tuple[str, str]:
    """A session whose run stopped after its first step (as if its process died); (session id, run id)."""
    session = store.sessions.create()
    stream = run_in_session(store, session.id, arithmetic_agent(), "What is 6*7?")
    for event in stream:
        if isinstance(event, StepStarted) and event.step == 2:
            break
    stream.close()  # type: ignore[attr-defined]
    interrupted = store.runs.interrupted(session.id)
    assert interrupted is not None
    return session.id, interrupted.run_id


def test_a_live_run_owns_its_session_and_a_database_cancel_stops_it(file_store: SessionStore) -> None:
    session = file_store.sessions.create()
    owners = RunOwners(file_store.engine)
    release = threading.Event()
    with ThreadPoolExecutor(1) as pool, _released(release):
        running = pool.submit(consume, run_in_session(file_store, session.id, slow_agent(release), "Slow?"))
        wait_for(lambda: file_store.runs.interrupted(session.id) is not None, "the run to start")
        claim = owners.get(session.id)
        assert claim is not None and claim.owner == this_process() and not claim.stale()
        with pytest.raises(SessionBusy, match=rf"session {session.id} already has a run in progress .*one run at a"):
            run_in_session(file_store, session.id, arithmetic_agent(), "What is 2*3?")
        with pytest.raises(SessionBusy):
            resume_run(file_store, session.id, arithmetic_agent())
        wait_for(lambda: (owners.get(session.id) or claim).heartbeat > claim.heartbeat, "a heartbeat")
        assert owners.request_cancel(session.id, claim.run_id)  # as a Stop on another replica does
        events = running.result(timeout=60)
        assert not release.is_set()
    assert isinstance(events[-1], RunFinished) and events[-1].status == "cancelled"
    assert owners.get(session.id) is None
    assert run(file_store, session.id, arithmetic_agent(), "What is 2*3?")[-1].status == "completed"  # type: ignore[attr-defined]
    assert [e.type for e in file_store.log.events(session.id)].count("run_started") == 2


def test_ten_questions_at_once_run_one_at_a_time(file_store: SessionStore) -> None:
    session = file_store.sessions.create()
    release, start = threading.Event(), threading.Barrier(10)

    def ask(i: int) -> list[Event] | str:
        start.wait(timeout=30)
        try:
            events = run_in_session(file_store, session.id, slow_agent(release), f"Question {i}?")
        except SessionBusy as exc:
            return str(exc)
        return consume(events)

    with ThreadPoolExecutor(10) as pool, _released(release):
        futures = [pool.submit(ask, i) for i in range(10)]
        wait_for(lambda: sum(f.done() for f in futures) >= 9, "nine refusals")  # the tenth runs until released
        refused = [f.result() for f in futures if f.done()]
        release.set()
        outcomes = [f.result(timeout=60) for f in futures]
    ran = [o for o in outcomes if isinstance(o, list)]
    assert len(ran) == 1 and len(refused) == 9 and all("already has a run in progress" in r for r in refused)
    stored = file_store.log.events(session.id)
    assert [e.type for e in stored if e.type.startswith("run_")] == ["run_started", "run_finished"]
    assert {e.run_id for e in stored} == {ran[0][0].run_id}


def test_two_resuming_a_dead_run_at_once_make_exactly_one_continuation(file_store: SessionStore) -> None:
    session_id, run_id = interrupted_session(file_store)
    set_owner(file_store, session_id, run_id, "replica-gone:1", time.time() - 60)  # its replica died a minute ago
    start = threading.Barrier(2)

    def resume() -> list[Event] | str:
        start.wait(timeout=30)
        try:
            return consume(resume_run(file_store, session_id, arithmetic_agent()))
        except (SessionBusy, NothingToResume) as exc:
            return type(exc).__name__

    with ThreadPoolExecutor(2) as pool:
        outcomes = [f.result(timeout=60) for f in [pool.submit(resume), pool.submit(resume)]]
    continued = [o for o in outcomes if isinstance(o, list)]
    assert len(continued) == 1 and continued[0][-1].status == "completed"  # type: ignore[attr-defined]
    assert next(o for o in outcomes if isinstance(o, str)) in {"SessionBusy", "NothingToResume"}
    stored = file_store.log.events(session_id)
    assert [e.type for e in stored].count("run_finished") == 1 and [e.type for e in stored].count("run_resumed") == 1
    assert RunOwners(file_store.engine).get(session_id) is None


def test_resume_waits_for_a_stale_heartbeat(
    file_store: SessionStore, file_db_url: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")  # never reached: the CLI refuses first
    session_id, run_id = interrupted_session(file_store)
    set_owner(file_store, session_id, run_id, "replica-2:4242", time.time())  # alive on another replica
    with pytest.raises(SessionBusy, match=r"run_\w+ on replica-2:4242, alive \d+\.\d s ago"):
        resume_run(file_store, session_id, arithmetic_agent())
    for command in (["sessions", "resume", session_id], ["ask", "What is 2*3?", "--session", session_id]):
        assert main([*command, "--db", file_db_url, "--yes"]) == 2
        out, err = capsys.readouterr()
        assert out == "" and err.count("\n") == 1
        assert re.fullmatch(rf"sparrow: session {session_id} already has a run in progress \(.*\); one run .*\n", err)
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    set_owner(file_store, session_id, run_id, f"{replica_id()}:{dead.stdout.strip()}", time.time())
    owner = RunOwners(file_store.engine).get(session_id)
    assert owner is not None and owner.stale()  # fresh heartbeat, but its process on this host is gone
    set_owner(file_store, session_id, run_id, "replica-2:4242", time.time() - 60)
    assert consume(resume_run(file_store, session_id, arithmetic_agent()))[-1].status == "completed"  # type: ignore[attr-defined]


def test_a_run_owned_elsewhere_is_followed_through_the_event_table(file_store: SessionStore) -> None:
    session = file_store.sessions.create()
    set_owner(file_store, session.id, "run_far", "replica-2:4242", time.time())
    started = RunStarted(run_id="run_far", ts=1.0, question="Far?", model="m", protocol="react", tools=(), settings={})
    file_store.log.append(session.id, [started])
    owner = RunOwners(file_store.engine).live(session.id)
    assert owner is not None and not owner.local
    followed = FollowedRun(file_store, session.id, owner)
    assert followed.base == (started,) and followed.wait(0, 0.05) == [] and not followed.done
    step = StepStarted(run_id="run_far", ts=2.0, step=1)
    file_store.log.append(session.id, [step])
    assert followed.wait(0, 30) == [step]
    followed.cancel()
    assert RunOwners(file_store.engine).get(session.id).cancel_requested  # type: ignore[union-attr]
    finished = RunFinished(run_id="run_far", ts=3.0, status="cancelled")
    file_store.log.append(session.id, [finished])
    assert followed.wait(1, 30) == [finished] and followed.done


def test_a_follower_stops_when_the_owner_stops_heartbeating(file_store: SessionStore) -> None:
    session = file_store.sessions.create()
    set_owner(file_store, session.id, "run_far", "replica-2:4242", time.time())
    owner = RunOwners(file_store.engine).live(session.id)
    followed = FollowedRun(file_store, session.id, owner)  # type: ignore[arg-type]
    with file_store.engine.begin() as conn:
        conn.execute(update(_OWNERS).values(heartbeat=time.time() - 60))
    assert followed.wait(0, 30) == [] and followed.done


def test_stale_means_no_heartbeat_for_ten_seconds() -> None:
    now = time.time()
    assert not RunOwner("s", "r", "replica-2:1", now - 5, False).stale(now)
    assert RunOwner("s", "r", "replica-2:1", now - 11, False).stale(now)


def test_the_owner_is_this_replica_and_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPARROW_REPLICA_ID", "web-1")
    assert this_process() == f"web-1:{os.getpid()}"


def test_one_thread_beats_every_run_of_the_process_in_one_statement(file_store: SessionStore) -> None:
    sessions = [file_store.sessions.create() for _ in range(8)]
    owners, release, beats = RunOwners(file_store.engine), threading.Event(), []

    def count(conn: object, cursor: object, statement: str, *rest: object) -> None:
        if statement.startswith("UPDATE run_owners SET heartbeat"):
            beats.append(time.monotonic())

    sa_event.listen(file_store.engine, "before_cursor_execute", count)
    with ThreadPoolExecutor(8) as pool, _released(release):
        runs = [run_in_session(file_store, s.id, slow_agent(release), "Slow?") for s in sessions]
        running = [pool.submit(consume, r) for r in runs]
        wait_for(lambda: all(owners.get(s.id) is not None for s in sessions), "eight runs to start")
        started = time.monotonic()
        wait_for(lambda: len([b for b in beats if b > started]) >= 3, "three beats")
        elapsed = time.monotonic() - started
        assert not [t.name for t in threading.enumerate() if t.name.startswith("heartbeat-")]  # no thread per run
        assert len([b for b in beats if b > started]) <= elapsed / HEARTBEAT_S + 2  # a thread each made 8 per beat
        stopped, taken = owners.get(sessions[3].id), owners.get(sessions[5].id)
        assert stopped is not None and taken is not None
        assert owners.request_cancel(stopped.session_id, stopped.run_id)  # a Stop on another replica
        set_owner(file_store, taken.session_id, taken.run_id, "replica-2:4242", time.time())  # taken over
        wait_for(lambda: running[3].done() and running[5].done(), "the stopped and the taken-over run to end")
        assert not any(f.done() for i, f in enumerate(running) if i not in (3, 5))
        release.set()
        ends = [f.result(timeout=60)[-1] for f in running]
    assert [e.status for e in ends] == ["completed"] * 3 + ["cancelled", "completed", "cancelled"] + ["completed"] * 2  # type: ignore[attr-defined]
