"""Carry on with a stored session: an agent with the session's memory, recorded runs, and resuming a dead run."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from sqlalchemy import Connection

from agent_core.engine.agent import Agent, AgentSettings, new_run_id
from agent_core.engine.attachments import Attachment, check_attachments
from agent_core.engine.context_window import ConversationMemory
from agent_core.engine.protocols import PROTOCOLS
from agent_core.events import Event, RunStarted
from agent_core.guards.limits import CancelToken
from agent_core.models.chat import ChatModel
from agent_core.store.runs import RunOwners, owned
from agent_core.store.sessions import SessionStore, record_events
from agent_core.store.tables import SessionConfig
from agent_core.tools import Tool

log = logging.getLogger(__name__)


CONSENT_UNSET: dict[str, Any] = {"require_approval": True, "tool_approval": {}}
"""The consent settings as a session stores them: ``--yes`` and ``--trust`` belong to the run they were given for.

A later run, a resume or a fork of the session asks again unless whoever starts it says otherwise; the consent a
run had is still recorded in its own ``run_started`` settings.
"""


class NothingToResume(LookupError):
    """The session's last run finished (or it has none): there is nothing to resume."""


def config_from_agent(agent: Agent) -> SessionConfig:
    """What a session records about the agent that runs it: model name, endpoint, protocol, settings."""
    base_url = getattr(agent.model, "base_url", None)
    return SessionConfig(
        model=agent.model.name,
        base_url=base_url if isinstance(base_url, str) else None,
        protocol=agent.protocol.name,
        settings={**agent.settings.to_record(), **CONSENT_UNSET},
    )


def protocol_from_config(config: SessionConfig) -> str:
    """The session's protocol if this build knows it, else ``react``."""
    return config.protocol if config.protocol in PROTOCOLS else "react"


def agent_for_session(
    store: SessionStore,
    session_id: str,
    model: ChatModel,
    tools: Iterable[Tool] | None = None,
    *,
    protocol: str | None = None,
    settings: AgentSettings | None = None,
    **overrides: Any,
) -> Agent:
    """An Agent that remembers the session's finished runs; protocol and settings default to the session's."""
    config = store.sessions.get(session_id).config
    agent = Agent(
        model,
        tools,
        protocol=protocol or protocol_from_config(config),
        settings=settings or AgentSettings.from_record(config.settings),
        **overrides,
    )
    load_memory(agent, store.log.events(session_id))
    return agent


def load_memory(agent: Agent, events: Iterable[Event]) -> None:
    """Replace the agent's conversation memory with the finished runs in ``events`` (its options stay)."""
    agent.memory.turns = ConversationMemory.from_events(events).turns


def run_in_session(
    store: SessionStore,
    session_id: str,
    agent: Agent,
    question: str,
    *,
    cancel: CancelToken | None = None,
    persist_deltas: bool = False,
    run_id: str | None = None,
    attachments: Sequence[Attachment] = (),
) -> Iterator[Event]:
    """Run ``question`` with ``agent``, recording every event in the session (see ``record_events``).

    The run is claimed for this process first: raises SessionBusy if the session has a live run anywhere.
    """
    check_attachments(attachments, agent.model.name)  # refused before anything is claimed or sent
    cancel = cancel or CancelToken()

    def start(claimed: str) -> Iterator[Event]:
        return agent.run(question, cancel=cancel, run_id=claimed, attachments=attachments)

    return recorded_run(store, session_id, agent, run_id or new_run_id(), start, cancel, persist_deltas=persist_deltas)


def run_in_new_session(
    store: SessionStore,
    agent: Agent,
    question: str,
    *,
    title: str | None = None,
    cancel: CancelToken | None = None,
    also: Callable[[Connection, str], None] | None = None,
) -> tuple[str, Iterator[Event]]:
    """``question`` asked in a new session of the actor's; (its id, the recorded events).

    For runs that are started again from scratch when interrupted (an experiment's items): one transaction makes
    the session with the agent's configuration, claims its run and adds ``also``'s rows (``SessionStore.runs.open``),
    and the events are written grouped (``record_events``), about half the transactions of ``run_in_session``.
    """
    cancel = cancel or CancelToken()
    claim = store.runs.open(new_run_id(), config_from_agent(agent), title=title, also=also)
    events = agent.run(question, cancel=cancel, run_id=claim.run_id)
    recorded = record_events(store, claim.session_id, events, grouped=True)
    return claim.session_id, owned(RunOwners(store.engine), claim, cancel, recorded)


def recorded_run(
    store: SessionStore,
    session_id: str,
    agent: Agent,
    run_id: str,
    start: Callable[[str], Iterator[Event]],
    cancel: CancelToken,
    *,
    persist_deltas: bool = False,
) -> Iterator[Event]:
    """The events ``start(run_id)`` yields, recorded in the session while this process owns the run.

    The run is claimed through the acting user first (SessionNotFound, ReadOnly or SessionBusy before anything
    runs), and the agent's settings become the session's.
    """
    owners = RunOwners(store.engine)
    claim = store.runs.claim(session_id, run_id)
    try:
        store.sessions.update_config(session_id, config_from_agent(agent))
    except BaseException:
        owners.release(claim)
        raise
    events = start(claim.run_id)
    return owned(owners, claim, cancel, record_events(store, session_id, events, persist_deltas=persist_deltas))


def resume_run(
    store: SessionStore,
    session_id: str,
    agent: Agent,
    *,
    cancel: CancelToken | None = None,
    persist_deltas: bool = False,
) -> Iterator[Event]:
    """Continue the session's interrupted run after its last complete step, recording it.

    Raises NothingToResume if there is none, SessionBusy if its owner is still alive (or another process
    claimed it first: of two resuming at once, exactly one continues the run).
    """
    interrupted = store.runs.interrupted(session_id)
    if interrupted is None:
        raise NothingToResume(f"session {session_id!r} has no interrupted run")
    cancel = cancel or CancelToken()
    owners = RunOwners(store.engine)
    claim = store.runs.claim(session_id, interrupted.run_id)
    try:
        again = store.runs.interrupted(session_id)  # it may have been resumed and finished while we claimed
        if again is None or again.run_id != interrupted.run_id:
            raise NothingToResume(f"session {session_id!r} has no interrupted run")
        earlier, run_events = split_at_run(store.log.events(session_id), interrupted.run_id)
        load_memory(agent, earlier)
        store.sessions.update_config(session_id, config_from_agent(agent))
    except BaseException:
        owners.release(claim)
        raise
    log.info("resuming run %s of session %s", interrupted.run_id, session_id)
    events = record_events(store, session_id, agent.resume(run_events, cancel=cancel), persist_deltas=persist_deltas)
    return owned(owners, claim, cancel, events)


def split_at_run(events: Sequence[Event], run_id: str) -> tuple[list[Event], list[Event]]:
    """(events before the run's last ``run_started``, that run's events from there on)."""
    start = max((i for i, e in enumerate(events) if isinstance(e, RunStarted) and e.run_id == run_id), default=None)
    if start is None:
        raise NothingToResume(f"run {run_id!r} has no run_started event")
    return list(events[:start]), [e for e in events[start:] if e.run_id == run_id]
