"""Chat: the conversation on the left, the selected turn's trace on the right, live while the agent works."""

from __future__ import annotations

from functools import partial

import streamlit as st

from agent_core.approvals import approval_key
from agent_core.metrics import run_metrics
from agent_core.models import ModelError
from agent_core.store import SessionNotFound
from agent_core.transcript import TurnView
from agent_core.untrusted import neutralize
from sparrow_ui import render
from sparrow_ui.i18n import t
from sparrow_ui.runs import decide, resume_interrupted, start_question, stop, watch
from sparrow_ui.session_controls import session_controls
from sparrow_ui.session_view import prices, session_view, with_live
from sparrow_ui.sidebar import frame
from sparrow_ui.state import current_session_id, get_store, live_runs, open_session

PAGE_TURNS = 20
"""Turns drawn at first; older ones appear on request, so long sessions stay fast."""

config = frame()
store = get_store()
session_id = current_session_id()
try:
    view = session_view(store, session_id)
except SessionNotFound:
    st.warning(t("session.not_found", id=session_id))
    open_session(None)
    session_id, view = None, session_view(store, None)

live = live_runs().active(session_id) if session_id else None
transcript, live_seen = with_live(view, live) if live else (view.transcript, 0)
turns = transcript.turns
selected = st.session_state.get("selected_run") or (turns[-1].run_id if turns else None)
if live is not None:
    selected = live.run_id


def select(run_id: str) -> None:
    """Show this turn in the trace panel."""
    st.session_state["selected_run"] = run_id


session_controls(store, view, busy=live is not None)

if flash := st.session_state.pop("flash", None):
    st.success(flash)

# ── Conversation and trace ───────────────────────────────────────────────────────────────────────
chat_column, trace_column = st.columns([3, 2], gap="large")
live_answer = live_trace = None
awaiting = 0  # calls the live run waits on; while there are some, the page stops and waits for a click
with chat_column:
    if not turns:
        if config.configured:
            st.info(t("chat.empty"))
        else:
            st.subheader(t("onboard.title"))
            st.markdown(t("onboard.body"))
    shown = st.session_state.get("visible_turns", PAGE_TURNS)
    hidden = len(turns) - shown
    if hidden > 0 and st.button(t("chat.earlier", count=min(PAGE_TURNS, hidden)), key="earlier"):
        st.session_state["visible_turns"] = shown + PAGE_TURNS
        st.rerun()
    for turn in turns[-shown:]:
        render.user_message(turn.question)
        with st.chat_message("assistant"):
            if live is not None and turn.run_id == live.run_id:
                live_answer = st.empty()
                with live_answer.container():
                    render.answer_body(turn)
                for step_number, action in turn.pending_approvals:
                    key = approval_key(turn.run_id, step_number, action.call_id)
                    if live.approvals.decision(key) is None:
                        awaiting += 1
                        render.approval_box(
                            action.tool,
                            action.arguments,
                            key,
                            partial(decide, live, turn.run_id, step_number, action.call_id),
                        )
                continue
            render.answer_body(turn)
            if turn.finished:
                left, right = st.columns([5, 1])
                left.caption(render.turn_caption(turn, view.run_metrics.get(turn.run_id)))
                right.button(
                    "",
                    icon=":material/manage_search:",
                    key=f"select_{turn.run_id}",
                    help=t("chat.show_trace"),
                    on_click=select,
                    args=(turn.run_id,),
                    type="tertiary" if turn.run_id != selected else "secondary",
                )
    interrupted = None if live or view.info is None else store.interrupted_run(view.info.id)
    if interrupted is not None:
        st.warning(t("chat.interrupted"))
        if st.button(t("chat.resume"), icon=":material/replay:", disabled=not config.configured):
            try:
                resume_interrupted(store, view.info.id, config, interrupted.run_id)  # type: ignore[union-attr]
            except (ModelError, RuntimeError) as exc:
                st.error(neutralize(str(exc)))
            else:
                st.rerun()
    if live is not None and st.button(t("chat.stop"), icon=":material/stop_circle:", key="stop", type="primary"):
        stop(live)

with trace_column:
    st.subheader(t("trace.header"))
    chosen: TurnView | None = transcript.turn(selected) if selected else None
    if chosen is None:
        st.caption(t("trace.none"))
    else:
        number = turns.index(chosen) + 1
        live_trace = st.empty()
        with live_trace.container():
            render.trace_header(chosen, number, view.run_metrics.get(chosen.run_id))
            render.steps(chosen, prices(), live=live is not None)

question = st.chat_input(
    t("chat.placeholder") if config.configured else t("chat.placeholder_off"),
    disabled=live is not None or not config.configured,
    key="question",
)
if question and question.strip():
    try:
        if view.info is None:
            created = store.create_session()
            open_session(created.id)
            session_id = created.id
        start_question(store, session_id, config, question.strip())  # type: ignore[arg-type]
    except (ModelError, RuntimeError) as exc:
        st.error(neutralize(str(exc)))
    else:
        st.session_state.pop("selected_run", None)
        st.rerun()

if live is not None and not awaiting:
    current = transcript.turn(live.run_id)

    def redraw(new: list) -> None:
        """Fold the new events into the live turn and redraw its answer and trace."""
        transcript.extend(new)
        if current is None:
            return
        if live_answer is not None:
            with live_answer.container():
                render.answer_body(current)
        if live_trace is not None:
            with live_trace.container():
                metrics = run_metrics([*live.base, *live.events], live.run_id, prices=prices())
                render.trace_header(current, turns.index(current) + 1, metrics)
                render.steps(current, prices(), live=True)

    watch(live, redraw, since=live_seen)
    live_runs().forget(live.key)
    st.rerun()
