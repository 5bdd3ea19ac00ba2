"""agent_core.runtime.sessions: carrying on with a stored session (memory, settings, resuming an interrupted
run)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from agent_core import AgentSettings
from agent_core.engine.conversation import finished_turns
from agent_core.events import RunFinished, ToolFinished
from agent_core.runtime.sessions import (
    NothingToResume,
    agent_for_session,
    config_from_agent,
    resume_run,
    run_in_session,
)
from agent_core.store import SessionConfig, SessionStore, record_events
from agent_core.testing import FunctionModel
from agent_core.views.transcript import Transcript
from tests.core.helpers import simplify
from tests.store.helpers import arithmetic, arithmetic_agent, persisted, run


@pytest.fixture
def store() -> Iterator[SessionStore]:
    """A store on an in-memory SQLite database."""
    s = SessionStore.open("sqlite://")
    yield s
    s.close()


def test_a_loaded_session_remembers_its_conversation(store: SessionStore) -> None:
    agent = arithmetic_agent(protocol="react", max_steps=4)
    session = store.sessions.create(config_from_agent(agent))
    run(store, session.id, agent, "What is 6*7?")

    again = agent_for_session(store, session.id, FunctionModel(arithmetic))
    assert again.memory.turns == agent.memory.turns
    assert (again.protocol.name, again.settings.max_steps) == ("react", 4)
    events = list(run_in_session(store, session.id, again, "Add 10 to that"))
    assert events[-1].final_answer == "52"  # type: ignore[attr-defined]
    rebuilt = finished_turns(Transcript.from_events(store.log.events(session.id)).turns)
    assert [(t.question, t.answer) for t in rebuilt] == [("What is 6*7?", "42"), ("Add 10 to that", "52")]


def test_explicit_protocol_and_settings_win_over_the_session(store: SessionStore) -> None:
    session = store.sessions.create(SessionConfig(model="m", protocol="tools", settings={"max_steps": 3}))
    agent = agent_for_session(store, session.id, FunctionModel(arithmetic), protocol="react", tool_timeout=5.0)
    assert (agent.protocol.name, agent.settings.max_steps, agent.settings.tool_timeout) == ("react", 3, 5.0)


def test_an_unknown_stored_protocol_falls_back_to_react(store: SessionStore) -> None:
    session = store.sessions.create(SessionConfig(model="m", protocol="from-the-future"))
    assert agent_for_session(store, session.id, FunctionModel(arithmetic)).protocol.name == "react"


def test_stored_settings_that_are_unknown_or_invalid_fall_back_to_defaults() -> None:
    settings = AgentSettings.from_record({"max_steps": "7", "keep_steps": "many", "from_the_future": 1})
    assert (settings.max_steps, settings.keep_steps) == (7, AgentSettings().keep_steps)
    assert AgentSettings.from_record({"max_steps": 0}).max_steps == 10


def test_an_interrupted_run_resumes_after_its_last_complete_step(store: SessionStore) -> None:
    agent = arithmetic_agent()
    session = store.sessions.create(config_from_agent(agent))
    run(store, session.id, agent, "What is 6*7?")
    stream = record_events(store, session.id, agent.run("Add 10 to that"))
    for event in stream:
        if isinstance(event, ToolFinished):
            break  # the process dies right after the first step's observation is saved
    stream.close()
    interrupted = store.runs.interrupted(session.id)
    assert interrupted is not None and interrupted.question == "Add 10 to that"

    fresh = arithmetic_agent()
    resumed = list(resume_run(store, session.id, fresh))
    assert simplify(resumed) == [
        ("run_resumed", 2),
        ("step", 2),
        ("model", "I have it.", "52"),
        ("answer", "52"),
        ("finished", "completed", "52", None),
    ]
    finished = resumed[-1]
    assert isinstance(finished, RunFinished) and (finished.steps, finished.tool_calls) == (2, 1)
    assert resumed[0].run_id == interrupted.run_id
    assert store.log.events(session.id)[-len(persisted(resumed)) :] == persisted(resumed)
    assert store.runs.interrupted(session.id) is None
    assert [(t.question, t.answer) for t in fresh.memory.turns] == [("What is 6*7?", "42"), ("Add 10 to that", "52")]
    with pytest.raises(NothingToResume):
        resume_run(store, session.id, fresh)
