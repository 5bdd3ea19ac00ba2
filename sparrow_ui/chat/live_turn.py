"""The turn the agent is working on, on the Chat page: the calls it waits on, and its answer and trace as they grow."""

from __future__ import annotations

import time
from dataclasses import replace
from functools import partial

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from agent_core.engine.approvals import approval_key
from agent_core.engine.state import CallState, RunState
from agent_core.events import Event, ModelDelta, RunStarted
from agent_core.runtime.sessions import ActiveRun
from agent_core.store import SessionStore
from agent_core.views.metrics import turn_metrics
from sparrow_ui.chat.conversation import trace_panel
from sparrow_ui.chat.page_parts import remember_failure
from sparrow_ui.chat.run_control import active_run, decide, start_queued, watch
from sparrow_ui.shell.layout import follow_run, scroll_trace_to
from sparrow_ui.shell.session_view import LiveFold, SessionView, prices, session_view, with_live
from sparrow_ui.shell.state import ModelConfig, live_runs
from sparrow_ui.steps import renderer as render

TRACE_REDRAW_S = 0.5
"""While only text streams in, the trace panel is redrawn at most this often (the answer at every batch)."""

START_WAIT_S = 5.0
"""How long the page waits for a run it just started to record its question before drawing without it."""


def until_started(live: ActiveRun) -> bool:
    """Wait (up to START_WAIT_S) until the live run has recorded its start, so the page can draw its question.

    A run starts in its thread: the page's rerun right after the question was sent often came before the
    thread's first event, and drew the session as if nothing had been asked. True when the start is there.
    """
    deadline = time.monotonic() + START_WAIT_S
    while True:
        if any(isinstance(e, RunStarted) for e in (*live.base, *live.events)):
            return True
        if live.done or time.monotonic() >= deadline:
            return False
        live.wait(len(live.events), 0.05)


def live_run(store: SessionStore, view: SessionView, config: ModelConfig) -> ActiveRun | None:
    """The session's run in progress, started here or live on another replica, with the page following it down.

    A question that waited for the last run starts now (the page runs again to show it). A snapshot's share
    link shows no run: it is past the snapshot.
    """
    session_id = view.info.id if view.info else None
    live = active_run(store, session_id) if store.actor.shared_upto is None else None
    if live is None and session_id and start_queued(store, session_id, config):
        st.rerun()
    follow_run(live.run_id if live else None)  # drawn on every run at the same place
    return live


def live_view(store: SessionStore, view: SessionView, live: ActiveRun | None) -> tuple[SessionView, LiveFold | None]:
    """The session as stored, and its turns with the live run's events folded in (``LiveFold``, to follow on;
    None without a live run).

    A run just started may not have recorded its question yet: wait for it (``until_started``). Its start may
    also come just after the wait gave up, between reading the session and taking the live events; as a run's
    events are stored before they are seen, the session is then read again, question and title included (the
    sidebar, drawn once before the run is followed, would otherwise say "New session" until the run ends).
    """
    if live is None:
        return view, None
    if view.transcript.turn(live.run_id) is None and until_started(live):
        view = session_view(store, view.info.id) if view.info else view
    fold = with_live(view, live)
    if view.info and view.transcript.turn(live.run_id) is None and fold.transcript.turn(live.run_id) is not None:
        view = session_view(store, view.info.id)
        fold = with_live(view, live)
    return view, fold


def waiting(live: ActiveRun, turn: RunState | None) -> list[tuple[int, CallState]]:
    """The live turn's calls that wait for an Approve / Deny click, with their step numbers."""
    if turn is None:
        return []
    return [
        (step, action)
        for step, action in turn.pending_approvals
        if live.approvals.decision(approval_key(turn.run_id, step, action.call_id)) is None
    ]


def approval_boxes(live: ActiveRun, turn: RunState) -> None:
    """Approve / Deny for each call the live turn waits on."""
    for step, action in waiting(live, turn):
        key = approval_key(turn.run_id, step, action.call_id)
        on_decide = partial(decide, live, turn.run_id, step, action.call_id)
        render.approval_box(action.tool, action.arguments, key, on_decide, reason=action.approval_reason)


def follow(live: ActiveRun, fold: LiveFold, answer: DeltaGenerator | None, trace: DeltaGenerator) -> None:
    """Fold the run's events from ``fold.seen`` on into ``fold`` and redraw its answer and trace slots.

    Each redraw folds only the events that came since the last one, and reads the figures off the live turn.

    Returns when the run ends or asks for an approval (the page then reruns to ask).
    """

    last_trace = 0.0

    def redraw(new: list[Event]) -> None:
        """Draw the live turn again with the new events: the answer at once, the trace a few times a second.

        Redrawing the whole trace panel on every streamed token would delay the token on the page; while
        the answer itself streams into the chat, the trace waits for the reply to end.
        """
        nonlocal last_trace
        fold.add(new)
        transcript = fold.transcript
        turn = transcript.turn(live.run_id)
        if turn is None:
            return
        if answer is None:  # the page was drawn before the run's start: draw it again with its question
            st.rerun()
        with answer.container():
            render.answer_body(turn)
        now = time.monotonic()
        only_text = bool(new) and all(isinstance(e, ModelDelta) for e in new)
        answering = bool(render.visible_answer(turn.live_text, turn.protocol))
        if only_text and (answering or now - last_trace < TRACE_REDRAW_S):
            return
        last_trace = now
        metrics = turn_metrics(turn, prices=prices())
        metrics = replace(metrics, duration_ms=turn.clock.worked_ms(time.time()))  # the time so far, ticking
        with trace.container():
            trace_panel(turn, transcript.turns.index(turn) + 1, metrics, prices(), live=True)
            scroll_trace_to(-1, f"{turn.run_id}-{len(turn.steps)}")

    watch(live, redraw, since=fold.seen)


def follow_to_the_end(fold: LiveFold | None, answer: DeltaGenerator | None, trace: DeltaGenerator) -> None:
    """Grow the live turn's answer and trace until its run ends, then show the page as it ended (a rerun).

    Not while the run waits for an Approve / Deny click: the page stays drawn with the buttons.
    """
    if fold is None or waiting(fold.live, fold.transcript.turn(fold.live.run_id)):
        return
    follow(fold.live, fold, answer, trace)
    remember_failure(fold.live)
    live_runs().forget(fold.live.key)
    st.rerun()
