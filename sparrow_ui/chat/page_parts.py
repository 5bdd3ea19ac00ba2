"""The Chat page's parts around the conversation: the session opened, its banners, the empty state, the run's
buttons, the trace column, the chat box."""

from __future__ import annotations

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from agent_core.engine.state import RunState
from agent_core.guards.untrusted import neutralize
from agent_core.models import ModelError
from agent_core.runtime.sessions import ActiveRun
from agent_core.store import SessionNotFound, SessionStore
from sparrow_ui.chat import chat_attachments
from sparrow_ui.chat import example_sessions as examples
from sparrow_ui.chat.conversation import trace_panel
from sparrow_ui.chat.run_control import ask, queued, resume_interrupted, stop
from sparrow_ui.elements.imported_mark import imported_mark
from sparrow_ui.shell.layout import TRACE_KEY, open_at_top, scroll_trace_to
from sparrow_ui.shell.session_view import SessionView, prices, session_view
from sparrow_ui.shell.state import ModelConfig, current_session_id, open_session, select_turn
from sparrow_ui.steps import whatif_controls as whatif
from sparrow_ui.steps.step_status import first_failing
from sparrow_ui.translations.i18n import t


def opened_session(store: SessionStore) -> SessionView:
    """The session the URL opens, scrolled to its top; one that is gone or not this user's says so: a new chat opens."""
    session_id = current_session_id()
    open_at_top(session_id or "new")  # its heading, banner or message in view (drawn on every run: nothing shifts)
    try:
        return session_view(store, session_id)
    except SessionNotFound:
        st.warning(t("session.not_found", id=session_id))
        open_session(None)
        return session_view(store, None)


def banners(view: SessionView) -> None:
    """Above the conversation: an example session's banner, an imported copy's mark, the last action's message."""
    examples.banner(view.info)
    imported_mark(view.info)
    if flash := st.session_state.pop("flash", None):
        st.success(flash)


def empty_state(store: SessionStore, config: ModelConfig, *, viewing: bool) -> None:
    """A session with no turn yet: what to do next (ask; nothing to see; or connect a model and try an example)."""
    if config.configured:
        st.info(t("chat.empty"))
    elif viewing:
        st.info(t("traces.no_runs"))
    else:
        st.subheader(t("onboard.title"))
        st.markdown(t("onboard.body"))
        examples.offer(store)


_FAILED = "failed_run"
"""(session id, run id) and the sentence of the last run here whose thread stopped it (a long database outage)."""


def remember_failure(live: ActiveRun) -> None:
    """A run whose thread stopped without ending it (``live.error``): keep why, to say it once it shows interrupted."""
    if live.error:
        st.session_state[_FAILED] = ((live.key, live.run_id), live.error)


def run_buttons(store: SessionStore, view: SessionView, config: ModelConfig, live: ActiveRun | None) -> None:
    """Under the conversation: Resume for an interrupted run, Stop for a live one, and the question waiting."""
    interrupted = None if live or view.info is None else store.runs.interrupted(view.info.id)
    if view.info is not None and interrupted is not None:
        failed = st.session_state.get(_FAILED)
        if failed and failed[0] == (view.info.id, interrupted.run_id):
            st.error(neutralize(failed[1]), icon=":material/database:")  # why it stopped (the database, say)
        else:
            st.warning(t("chat.interrupted"))
        if st.button(t("chat.resume"), icon=":material/replay:", disabled=not config.configured):
            try:
                resume_interrupted(store, view.info.id, config, interrupted.run_id)
            except (ModelError, RuntimeError) as exc:
                st.error(neutralize(str(exc)))
            else:
                st.rerun()
    if live is not None and st.button(t("chat.stop"), icon=":material/stop_circle:", key="stop", type="primary"):
        stop(live)
    if waiting_question := queued(view.info.id if view.info else None):
        st.info(t("chat.queued", question=waiting_question), icon=":material/schedule:")


def trace_column(
    store: SessionStore,
    view: SessionView,
    config: ModelConfig,
    turns: list[RunState],
    shown: RunState | None,
    *,
    live: bool,
) -> DeltaGenerator:
    """The shown turn's trace (with what-if controls once it ended); returns the slot a live run redraws into."""
    with st.container(key=TRACE_KEY):
        # A live run draws into its own slot: Streamlit would otherwise let the new trace inherit the last
        # turn's step blocks, showing them under the new "running" step until the run ends.
        finished_slot, live_slot = st.empty(), st.empty()
        trace_slot = live_slot if live else finished_slot
        with trace_slot.container():
            number = turns.index(shown) + 1 if shown else 0
            metrics = view.run_metrics.get(shown.run_id) if shown else None
            session_id = view.info.id if view.info else None
            controls = None if live else whatif.controls_for(store, config, session_id, shown)
            trace_panel(shown, number, metrics, prices(), live=live, controls=controls)
            if shown is not None:
                scroll_trace_to(-1 if live else first_failing(shown), f"{shown.run_id}-{len(shown.steps)}")
    return trace_slot


def question_box(store: SessionStore, view: SessionView, config: ModelConfig) -> None:
    """The chat box; a question sent starts its run (in a new session if none is open) or waits for the live one."""
    session_id = view.info.id if view.info else None
    question = chat_attachments.question_of(  # the text; attached files wait for the run
        chat_attachments.chat_box(
            t("chat.placeholder") if config.configured else t("chat.placeholder_off"),
            disabled=not config.configured or queued(session_id) is not None,
            key="question",
        ),
        session_id,
        config.run.model,
    )
    if not (question and question.strip()):
        return
    try:
        if session_id is None:
            session_id = store.sessions.create().id
            open_session(session_id)
        ask(store, session_id, config, question.strip())
    except (ModelError, RuntimeError) as exc:
        st.error(neutralize(str(exc)))
    else:
        select_turn(None)
        st.rerun()
