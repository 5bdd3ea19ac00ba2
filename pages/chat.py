"""Chat: the conversation on the left, the selected turn's trace on the right, live while the agent works."""

from __future__ import annotations

from functools import partial

import streamlit as st

from sparrow_ui.access.auth import read_only
from sparrow_ui.chat.conversation import conversation, recent_turns
from sparrow_ui.chat.live_turn import approval_boxes, follow_to_the_end, live_run, live_view
from sparrow_ui.chat.page_parts import banners, empty_state, opened_session, question_box, run_buttons, trace_column
from sparrow_ui.chat.session_controls import session_controls
from sparrow_ui.shell.layout import page_style
from sparrow_ui.shell.sidebar import frame
from sparrow_ui.shell.state import get_store, selected_turn

config = frame()
page_style()
store = get_store()
view = opened_session(store)  # the URL's session, or a new chat
live = live_run(store, view, config)  # started here, or live on another replica
view, fold = live_view(store, view, live)  # the live run's events folded in
turns = fold.transcript.turns if fold else view.transcript.turns
shown = fold.transcript.turn(fold.live.run_id) if fold else selected_turn(turns)
session_id = view.info.id if view.info else None
viewing = read_only()
if not viewing:
    session_controls(store, view, live_run_id=live.run_id if live else None)
banners(view)

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

follow_to_the_end(fold, answer_slot, trace_slot)  # the answer and the trace grow until the run ends
