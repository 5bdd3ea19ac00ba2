"""Chat: the conversation on the left, the selected turn's trace on the right, live while the agent works."""

from __future__ import annotations

from functools import partial

import streamlit as st

from agent_core.store import SessionNotFound
from sparrow_ui.access.auth import read_only
from sparrow_ui.chat import example_sessions as examples
from sparrow_ui.chat.conversation import conversation, recent_turns
from sparrow_ui.chat.live_turn import approval_boxes, follow, live_view, waiting
from sparrow_ui.chat.page_parts import empty_state, question_box, remember_failure, run_buttons, trace_column
from sparrow_ui.chat.run_control import active_run, start_queued
from sparrow_ui.chat.session_controls import session_controls
from sparrow_ui.elements.imported_mark import imported_mark
from sparrow_ui.shell.layout import follow_run, open_at_top, page_style
from sparrow_ui.shell.session_view import session_view
from sparrow_ui.shell.sidebar import frame
from sparrow_ui.shell.state import current_session_id, get_store, live_runs, open_session, selected_turn
from sparrow_ui.translations.i18n import t

config = frame()
page_style()
store = get_store()
session_id = current_session_id()
open_at_top(session_id or "new")  # its heading, banner or message in view (drawn on every run: nothing shifts)
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
follow_run(live.run_id if live else None)  # drawn on every run too
view, fold = live_view(store, view, live) if live else (view, None)
transcript = fold.transcript if fold else view.transcript
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
left, right = st.columns([3, 2], gap="large")
with left:
    if not turns:
        empty_state(store, config, viewing=viewing)
    answer_slot = conversation(
        recent_turns(turns, session_id),
        view.run_metrics,
        selected=shown.run_id if shown else None,
        pickable=True,
        session_id=session_id,
        live_run_id=live.run_id if live else None,
        under_live=partial(approval_boxes, live) if live and not viewing else None,  # a viewer decides nothing
    )
    if not viewing:
        run_buttons(store, view, config, live)

with right:
    trace_slot = trace_column(store, view, config, turns, shown, live=live is not None)

if not viewing:
    question_box(store, view, config)

if live is not None and fold is not None and not waiting(live, transcript.turn(live.run_id)):
    follow(live, fold, answer_slot, trace_slot)
    remember_failure(live)
    live_runs().forget(live.key)
    st.rerun()
