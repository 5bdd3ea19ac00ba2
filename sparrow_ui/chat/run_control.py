"""Start, resume, watch and stop runs; each run lives in a background thread and records every event."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import streamlit as st

from agent_core.engine.agent import Agent, new_run_id
from agent_core.engine.approvals import approval_key
from agent_core.events import ApprovalRequested, Event
from agent_core.guards.limits import CancelToken
from agent_core.longterm.guard import MemoryRefused
from agent_core.longterm.memory import MemoryStore
from agent_core.longterm.tools import bind_memory_tools
from agent_core.runtime.sessions import (
    ActiveRun,
    FollowedRun,
    LiveRun,
    agent_for_session,
    resume_run,
    run_in_session,
    split_at_run,
)
from agent_core.store import SessionNotFound, SessionStore
from agent_core.store.runs import RunOwner, SessionBusy
from agent_core.tools import Tool
from agent_core.trace_export.sending import live_export
from sparrow_ui.chat import chat_attachments
from sparrow_ui.shell.state import ModelConfig, live_runs
from sparrow_ui.translations.i18n import t

WATCH_INTERVAL_S = 0.1
TICK_S = 1.0
"""While a run is silent, its live figures are redrawn this often."""
_QUEUED = "queued_question"


def active_run(store: SessionStore, session_id: str | None) -> ActiveRun | None:
    """The session's run in progress: started here, or owned by another replica and followed through the store.

    A run whose owner stopped heartbeating is neither: the page then offers to resume it.
    """
    if session_id is None:
        return None
    if (local := live_runs().active(session_id)) is not None:
        return local if _may_read(store, session_id) else None
    owner = _live_owner(store, session_id)
    return FollowedRun(store, session_id, owner) if owner is not None and not owner.local else None


def live_run_id(store: SessionStore, session_id: str | None) -> str | None:
    """The id of the session's run in progress on any replica (cheaper than ``active_run``: no events read)."""
    if session_id is None:
        return None
    if (local := live_runs().active(session_id)) is not None:
        return local.run_id if _may_read(store, session_id) else None
    owner = _live_owner(store, session_id)
    return owner.run_id if owner is not None else None


def _live_owner(store: SessionStore, session_id: str) -> RunOwner | None:
    """The session's live run owner, through the acting user (None: none, or not theirs to see)."""
    try:
        return store.runs.live_owner(session_id)
    except SessionNotFound:
        return None


def _may_read(store: SessionStore, session_id: str) -> bool:
    """True when the acting user may see the session (a run started here is in the process-wide table)."""
    try:
        store.sessions.get(session_id)
    except SessionNotFound:
        return False
    return True


def ask(store: SessionStore, session_id: str, config: ModelConfig, question: str) -> None:
    """Start ``question`` now or, while a run is live in the session (here or on another replica), queue it.

    A queued question starts when that run ends (``start_queued``): one run at a time, never interleaved.
    """
    if active_run(store, session_id) is None:
        try:
            start_question(store, session_id, config, question)
            return
        except SessionBusy:  # another replica claimed the session a moment ago
            pass
    st.session_state[_QUEUED] = (session_id, question)


def queued(session_id: str | None) -> str | None:
    """The question waiting for the session's run in progress to end, if any."""
    entry = st.session_state.get(_QUEUED)
    return entry[1] if entry and entry[0] == session_id else None


def start_queued(store: SessionStore, session_id: str, config: ModelConfig) -> bool:
    """Start the queued question if the session is free now; True when it started."""
    question = queued(session_id)
    if question is None:
        return False
    try:
        start_question(store, session_id, config, question)
    except SessionBusy:
        return False
    st.session_state.pop(_QUEUED, None)
    return True


def run_tools(store: SessionStore, session_id: str, config: ModelConfig) -> list[Tool]:
    """The tools enabled in the sidebar, with the memory tools (if enabled) bound to this session's store.

    With an invalid ``SPARROW_MEMORY_SCOPE`` they stay unbound (they answer that memory is unavailable); the
    Memory page says why.
    """
    try:
        return bind_memory_tools(
            config.selected_tools(), MemoryStore(store.engine, actor=store.actor), session_id=session_id
        )
    except MemoryRefused:
        return config.selected_tools()


def session_agent(store: SessionStore, session_id: str, config: ModelConfig) -> Agent:
    """An agent with the sidebar's configuration and the session's memory."""
    return agent_for_session(
        store,
        session_id,
        config.chat_model(),
        run_tools(store, session_id, config),
        protocol=config.run.protocol,
        settings=config.agent_settings(),
    )


def start_question(store: SessionStore, session_id: str, config: ModelConfig, question: str) -> LiveRun:
    """Run ``question`` in the session with the sidebar's configuration; SessionBusy if a run is live anywhere."""
    agent = session_agent(store, session_id, config)
    run_id = new_run_id()
    files = chat_attachments.pending(session_id)

    def make(cancel: CancelToken) -> Iterator[Event]:
        recorded = run_in_session(store, session_id, agent, question, cancel=cancel, run_id=run_id, attachments=files)
        # spans sent while the run goes, if OTLP is set
        return live_export(recorded, session_id=session_id, started_by=store.actor.label)

    return live_runs().start(session_id, make, run_id=run_id, approvals=agent.approvals)


def resume_interrupted(store: SessionStore, session_id: str, config: ModelConfig, run_id: str) -> LiveRun:
    """Continue the session's interrupted run after its last complete step; SessionBusy if its owner is alive."""
    agent = session_agent(store, session_id, config)
    _, run_events = split_at_run(store.log.events(session_id), run_id)
    started_by = store.log.run_starters(session_id).get(run_id)

    def make(cancel: CancelToken) -> Iterator[Event]:
        resumed = resume_run(store, session_id, agent, cancel=cancel)
        return live_export(resumed, session_id=session_id, earlier=run_events, started_by=started_by)

    return live_runs().start(session_id, make, run_id=run_id, base=run_events, approvals=agent.approvals)


def watch(live: ActiveRun, redraw: Callable[[list[Event]], None], *, since: int = 0) -> None:
    """Redraw as the run's events arrive, until it ends or asks for an approval (the page then reruns to ask).

    While nothing arrives, ``redraw([])`` is called every TICK_S, so live figures (the elapsed time) go on.
    A click elsewhere interrupts this script run; the agent's run goes on in its thread.
    """
    seen, ticked = since, time.monotonic()
    while True:
        new = live.wait(seen, WATCH_INTERVAL_S)
        if new or time.monotonic() - ticked >= TICK_S:
            seen += len(new)
            ticked = time.monotonic()
            redraw(new)
            if any(isinstance(e, ApprovalRequested) for e in new):
                return
        if live.done and seen >= len(live.events):
            return


def decide(live: ActiveRun, run_id: str, step: int, call_id: str, approved: bool) -> None:
    """Approve or deny a call the run is waiting on."""
    live.approvals.decide(approval_key(run_id, step, call_id), approved)


def stop(live: ActiveRun) -> None:
    """Cancel the run (it ends with status ``cancelled``), and say so where the Stop button was clicked."""
    live.cancel()
    st.caption(f":material/stop_circle: {t('chat.stopping')}")
