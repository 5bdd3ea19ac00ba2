"""A read-only database (a ``?mode=ro`` SQLite open, as a read-only mount or a copy opened for reading gives):
every run and ask ends with one sentence naming it, exits non-zero, calls no model and changes nothing."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from agent_core import Agent
from agent_core.events import ToolFinished
from agent_core.runtime.sessions import run_in_session
from agent_core.store import SessionStore
from agent_core.store.database import DatabaseUnavailable
from agent_core.testing import FakeOpenAIServer, ScriptedModel
from agent_core.testing.rule_llm import TWO_TOOLS
from tests.core.helpers import react
from tests.core.test_cli import sparrow
from tests.store.helpers import arithmetic_agent, run

SENTENCE = "the database is read-only, so nothing can be recorded: attempt to write a readonly database"


def read_only(path: Path) -> str:
    return f"sqlite:///file:{path}?mode=ro&uri=true"


@pytest.fixture
def database(tmp_path: Path) -> tuple[Path, str, str]:
    """A database with a finished session and one whose run was interrupted: (file, finished id, interrupted id)."""
    path = tmp_path / "db.sqlite"
    store = SessionStore.open(f"sqlite:///{path}")
    done = store.sessions.create()
    run(store, done.id, arithmetic_agent(), "What is 6*7?")
    cut = store.sessions.create()
    events = []
    for event in Agent(ScriptedModel([react("First I multiply.", "calculator", expression="17 * 23")])).run(TWO_TOOLS):
        events.append(event)
        if isinstance(event, ToolFinished):
            break  # the process "died" after step 1
    store.log.append(cut.id, [e for e in events if e.type != "model_delta"])
    store.close()
    return path, done.id, cut.id


def fingerprint(path: Path) -> str:
    """The database's bytes, with any write-ahead log it has (a read-only open may leave an empty one)."""
    parts = [p for p in sorted(path.parent.glob("db.sqlite*")) if p.stat().st_size and not p.name.endswith("-shm")]
    return "".join(hashlib.sha256(p.read_bytes()).hexdigest() for p in parts)


COMMANDS = {
    "ask in a new session": lambda done, cut: ["ask", "What is 2+2?"],
    "ask in a session": lambda done, cut: ["ask", "What is 2+2?", "--session", done],
    "ask in a session, tools protocol": lambda done, cut: ["ask", "2+2?", "--session", done, "--protocol", "tools"],
    "resume": lambda done, cut: ["sessions", "resume", cut],
    "rename": lambda done, cut: ["sessions", "rename", done, "Another title"],
}


@pytest.mark.parametrize("command", COMMANDS)
def test_the_cli_names_the_read_only_database_in_one_line(database: tuple[Path, str, str], command: str) -> None:
    path, done, cut = database
    before = fingerprint(path)
    with FakeOpenAIServer(["Thought: ok\nFinal Answer: 4"] * 4) as server:
        result = sparrow(server, *COMMANDS[command](done, cut), "--db", read_only(path), timeout=120)
    assert result.returncode != 0
    assert result.stderr == f"sparrow: {SENTENCE}\n", result.stderr
    assert server.requests == []  # no model call whose answer could not be kept
    assert fingerprint(path) == before


def test_a_run_in_the_library_stops_before_the_model_with_the_same_sentence(database: tuple[Path, str, str]) -> None:
    path, done, _ = database
    before = fingerprint(path)
    store = SessionStore.open(read_only(path))
    model = ScriptedModel(["Thought: ok\nFinal Answer: 4"])
    with pytest.raises(DatabaseUnavailable) as caught:
        list(run_in_session(store, done, Agent(model), "What is 2+2?"))
    assert str(caught.value) == SENTENCE
    with pytest.raises(DatabaseUnavailable):
        store.sessions.create()
    assert [s.id for s in store.sessions.list()] and store.log.events(done)  # reading still works
    store.close()
    assert fingerprint(path) == before
