"""Chat: the conversation on the left, the selected turn's trace on the right, live while the agent works."""

from __future__ import annotations

from functools import partial

import streamlit as st

from agent_core.guards.untrusted import neutralize
from agent_core.models import ModelError
from agent_core.store import SessionNotFound
from sparrow_ui.access.auth import read_only
from sparrow_ui.chat import chat_attachments
from sparrow_ui.chat import example_sessions as examples
from sparrow_ui.chat.conversation import conversation, recent_turns, trace_panel
from sparrow_ui.chat.live_turn import approval_boxes, follow, live_view, waiting
from sparrow_ui.chat.run_control import active_run, ask, queued, resume_interrupted, start_queued, stop
from sparrow_ui.chat.session_controls import session_controls
from sparrow_ui.elements.imported_mark import imported_mark
from sparrow_ui.shell.layout import TRACE_KEY, page_style, scroll_trace_to
from sparrow_ui.shell.session_view import prices, session_view
from sparrow_ui.shell.sidebar import frame
from sparrow_ui.shell.state import current_session_id, get_store, live_runs, open_session, select_turn, selected_turn
from sparrow_ui.steps import whatif_controls as whatif
from sparrow_ui.steps.step_status import first_failing
from sparrow_ui.translations.i18n import t

_FAILED = "failed_run"
"""(session id, run id) and the sentence of the last run here whose thread stopped it (a long database outage)."""
config = frame()
page_style()
store = get_store()
session_id = current_session_id()
try:
    view = session_view(store, session_id)
except SessionNotFound:
    st.warning(t("session.not_found", id=session_id))
    open_session(None)
    session_id, view = None, session_view(store, None)

# started here, or live on another replica (not shown through a snapshot's share link: it is past the snapshot)
live = active_run(store, session_id) if store.actor.shared_upto is None else None
if live is None and session_id and start_queued(store, session_id, config):
    st.rerun()  # the question that waited for the last run starts now
view, transcript, live_seen = live_view(store, view, live) if live else (view, view.transcript, 0)
turns = transcript.turns
shown = transcript.turn(live.run_id) if live else selected_turn(turns)
viewing = read_only()
if not viewing:
    session_controls(store, view, live_run_id=live.run_id if live else None)
examples.banner(view.info)
imported_mark(view.info)
if flash := st.session_state.pop("flash", None):
    st.success(flash)

# ── Conversation and trace ───────────────────────────────────────────────────────────────────────
chat_column, trace_column = st.columns([3, 2], gap="large")
with chat_column:
    if not turns and config.configured:
        st.info(t("chat.empty"))
    elif not turns and viewing:
        st.info(t("traces.no_runs"))
    elif not turns:
        st.subheader(t("onboard.title"))
        st.markdown(t("onboard.body"))
        examples.offer(store)
    answer_slot = conversation(
        recent_turns(turns, session_id),
        view.run_metrics,
        selected=shown.run_id if shown else None,
        pickable=True,
        session_id=session_id,
        live_run_id=live.run_id if live else None,
        under_live=partial(approval_boxes, live) if live and not viewing else None,  # a viewer decides nothing
    )
    interrupted = None if live or viewing or view.info is None else store.interrupted_run(view.info.id)
    if interrupted is not None:
        failed = st.session_state.get(_FAILED)
        if failed and failed[0] == (session_id, interrupted.run_id):
            st.error(neutralize(failed[1]), icon=":material/database:")  # why it stopped (the database, say)
        else:
            st.warning(t("chat.interrupted"))
        if st.button(t("chat.resume"), icon=":material/replay:", disabled=not config.configured):
            try:
                resume_interrupted(store, view.info.id, config, interrupted.run_id)  # type: ignore[union-attr]
            except (ModelError, RuntimeError) as exc:
                st.error(neutralize(str(exc)))
            else:
                st.rerun()
    if (
        live is not None
        and not viewing
        and st.button(t("chat.stop"), icon=":material/stop_circle:", key="stop", type="primary")
    ):
        stop(live)
    if waiting_question := queued(session_id):
        st.info(t("chat.queued", question=waiting_question), icon=":material/schedule:")

with trace_column, st.container(key=TRACE_KEY):
    # A live run draws into its own slot: Streamlit would otherwise let the new trace inherit the last
    # turn's step blocks, showing them under the new "running" step until the run ends.
    finished_slot, live_slot = st.empty(), st.empty()
    trace_slot = live_slot if live else finished_slot
    with trace_slot.container():
        number = turns.index(shown) + 1 if shown else 0
        metrics = view.run_metrics.get(shown.run_id) if shown else None
        controls = whatif.controls_for(store, config, session_id, shown) if live is None else None
        trace_panel(shown, number, metrics, prices(), live=live is not None, controls=controls)
        if shown is not None:
            scroll_trace_to(-1 if live else first_failing(shown), f"{shown.run_id}-{len(shown.steps)}")

question = None
if not viewing:
    question = chat_attachments.question_of(  # the text; attached files wait for the run
        chat_attachments.chat_box(
            t("chat.placeholder") if config.configured else t("chat.placeholder_off"),
            disabled=not config.configured or queued(session_id) is not None,
            key="question",
        ),
        session_id,
        config.model,
    )
if question and question.strip():
    try:
        if view.info is None:
            session_id = store.create_session().id
            open_session(session_id)
        ask(store, session_id, config, question.strip())  # type: ignore[arg-type]
    except (ModelError, RuntimeError) as exc:
        st.error(neutralize(str(exc)))
    else:
        select_turn(None)
        st.rerun()

if live is not None and not waiting(live, transcript.turn(live.run_id)):
    follow(live, transcript, answer_slot, trace_slot, since=live_seen)
    if live.error:  # the run's thread stopped without ending the run: say why once it shows as interrupted
        st.session_state[_FAILED] = ((live.key, live.run_id), live.error)
    live_runs().forget(live.key)
    st.rerun()
