"""Run a turn's question again, with another model, protocol or setting, in a fork of its session.

The fork holds the session's events from before that turn (so the agent remembers the same earlier turns),
records ``parent_id`` = the original, and leaves the original untouched. The compare view then puts the
two turns side by side (:mod:`agent_core.views.compare`).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator

from agent_core.engine.agent import AgentSettings
from agent_core.events import Event, RunStarted
from agent_core.examples import EXAMPLE_KEY
from agent_core.models.chat import ChatModel
from agent_core.runtime.session_runs import agent_for_session, run_in_session
from agent_core.store import SessionInfo, SessionStore
from agent_core.store.access import new_id
from agent_core.tools import Tool


def fork_before_run(store: SessionStore, session_id: str, run_id: str, *, title: str | None = None) -> SessionInfo:
    """A new session with the events before run ``run_id`` started; KeyError if the session has no such run."""
    dump = store.dumps.read(session_id)
    start = next((e.seq for e in dump.events if e.run_id == run_id and e.type == RunStarted.type), None)
    if start is None:
        raise KeyError(f"session {session_id!r} has no run {run_id!r}")
    now = time.time()
    settings = {k: v for k, v in dump.config.settings.items() if k != EXAMPLE_KEY}  # a rerun is no example
    fork = dump.model_copy(
        update={
            "id": new_id("ses"),
            "title": title or dump.title,
            "created_at": now,
            "updated_at": now,
            "parent_id": session_id,
            "forked_from": None,
            "config": dump.config.model_copy(update={"settings": settings}),
            "events": [e for e in dump.events if e.seq < start],
            "snapshots": [],
        }
    )
    return store.dumps.add(fork)


def rerun_turn(
    store: SessionStore,
    session_id: str,
    run_id: str,
    model: ChatModel,
    tools: Iterable[Tool] | None = None,
    *,
    protocol: str,
    settings: AgentSettings | None = None,
) -> tuple[SessionInfo, Iterator[Event]]:
    """The fork, and the events of the question asked again in it (recorded as they come)."""
    question = next(
        (e.question for e in store.log.events(session_id) if isinstance(e, RunStarted) and e.run_id == run_id), None
    )
    if question is None:
        raise KeyError(f"session {session_id!r} has no run {run_id!r}")
    source = store.sessions.get(session_id)
    fork = fork_before_run(store, session_id, run_id, title=f"{source.title} · {protocol} · {model.name}"[:200])
    agent = agent_for_session(store, fork.id, model, tools, protocol=protocol, settings=settings)
    return fork, run_in_session(store, fork.id, agent, question)
