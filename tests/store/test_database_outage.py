"""Database faults while a run records: a short outage is waited out, a long one ends the run in one sentence."""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from agent_core import Agent
from agent_core.cli import main
from agent_core.events import Event, ModelDelta
from agent_core.runtime.sessions import run_in_session
from agent_core.store import SessionStore, database
from agent_core.store.database import DatabaseUnavailable
from agent_core.testing import FakeOpenAIServer, ScriptedModel
from agent_core.testing.pg_cluster import Cluster, find_bin_dir
from agent_core.tools import tool
from tests.core.helpers import answer, react
from tests.core.test_cli import sparrow


def outage_tool(start: Callable[[], None], end: Callable[[], None], seconds: float):  # type: ignore[no-untyped-def]
    """A tool that takes the database away as it runs and brings it back ``seconds`` later."""

    @tool
    def poke(n: int) -> str:
        """Poke the database.

        Args:
            n: Which poke.
        """
        start()
        threading.Timer(seconds, end).start()
        return f"poked {n}"

    return poke


def sqlite_lock(path: Path) -> tuple[Callable[[], None], Callable[[], None]]:
    """Take and release the SQLite file's write lock from another connection."""
    holder: dict[str, sqlite3.Connection] = {}

    def take() -> None:
        holder["c"] = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        holder["c"].execute("BEGIN EXCLUSIVE")

    def give() -> None:
        holder["c"].execute("COMMIT")
        holder["c"].close()

    return take, give


def script(steps: int) -> list[str]:
    return [*(react(f"poke {i}", "poke", n=i) for i in range(1, steps + 1)), answer("done", "poked")]


def recorded(store: SessionStore, session_id: str, seen: list[Event]) -> None:
    """The stored events are exactly the ones the run yielded (deltas aside), in order, each once."""
    stored = store.log.events(session_id)
    assert [e.to_dict() for e in stored] == [e.to_dict() for e in seen if not isinstance(e, ModelDelta)]


@pytest.fixture
def short_busy_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(database, "BUSY_TIMEOUT_S", 0.2)


@pytest.mark.parametrize("steps", [1, 3])
@pytest.mark.parametrize("seconds", [0.6, 2.0])
def test_a_locked_sqlite_file_for_a_few_seconds_is_waited_out(
    tmp_path: Path, short_busy_timeout: None, monkeypatch: pytest.MonkeyPatch, steps: int, seconds: float
) -> None:
    monkeypatch.setenv("SPARROW_DB_RETRY_S", "20")
    path = tmp_path / "db.sqlite"
    store = SessionStore.open(f"sqlite:///{path}")
    session = store.sessions.create()
    take, give = sqlite_lock(path)
    agent = Agent(ScriptedModel(script(steps)), [outage_tool(take, give, seconds)])
    seen = list(run_in_session(store, session.id, agent, "poke it"))
    assert seen[-1].status == "completed"
    recorded(store, session.id, seen)


def test_a_long_lock_ends_the_run_in_one_sentence_and_it_stays_resumable(
    tmp_path: Path, short_busy_timeout: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("SPARROW_DB_RETRY_S", "0.8")
    path = tmp_path / "db.sqlite"
    url = f"sqlite:///{path}"
    store = SessionStore.open(url)
    session = store.sessions.create()
    take, give = sqlite_lock(path)
    released = threading.Event()
    agent = Agent(ScriptedModel(script(2)), [outage_tool(take, lambda: (give(), released.set()), 2.5)])
    seen: list[Event] = []
    with pytest.raises(DatabaseUnavailable) as caught:
        seen.extend(run_in_session(store, session.id, agent, "poke it"))
    message = str(caught.value)
    assert message.startswith("the database could not record the tool_finished event of run ")
    assert "database is locked" in message and f"`sessions resume {session.id}`" in message
    assert "\n" not in message
    released.wait(10)
    interrupted = store.runs.interrupted(session.id)
    assert interrupted is not None
    assert main(["sessions", "show", session.id, "--json", "--db", url]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line.get("interrupted") for line in lines if line["type"] == "run_started"] == [True]
    assert "run_finished" not in {line["type"] for line in lines}


def test_ask_names_the_database_problem_in_one_line(tmp_path: Path) -> None:

    path = tmp_path / "db.sqlite"
    SessionStore.open(f"sqlite:///{path}").close()
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with FakeOpenAIServer(["Thought: ok\nFinal Answer: 4"]) as server:
            done = sparrow(server, "ask", "2+2?", "--db", f"sqlite:///{path}", timeout=120)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert done.returncode != 0
    assert "OperationalError" not in done.stderr and "unexpected error" not in done.stderr
    assert "database is locked" in done.stderr


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    bin_dir = find_bin_dir()
    if bin_dir is None:
        pytest.skip("PostgreSQL server binaries are not installed")
    server = Cluster(bin_dir).start()
    yield server
    server.stop()


def test_postgresql_down_for_a_few_seconds_loses_and_doubles_nothing(
    cluster: Cluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SPARROW_DB_RETRY_S", "30")
    store = SessionStore.open(cluster.url())
    session = store.sessions.create()
    agent = Agent(ScriptedModel(script(2)), [outage_tool(cluster.halt, cluster.restart, 2.0)])
    seen = list(run_in_session(store, session.id, agent, "poke it"))
    assert seen[-1].status == "completed"
    recorded(store, session.id, seen)
