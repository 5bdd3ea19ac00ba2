"""Traces: where a run's time and tokens went, every step inspected, the session at a glance, and replay."""

from __future__ import annotations

import streamlit as st

from agent_core.store import SessionNotFound
from agent_core.views.timeline import time_split, turn_timeline
from sparrow_ui.access.auth import read_only
from sparrow_ui.chat import example_sessions as examples
from sparrow_ui.chat.add_to_dataset import add_to_dataset_button
from sparrow_ui.chat.run_control import live_run_id as live_run_id_of
from sparrow_ui.elements.imported_mark import imported_mark
from sparrow_ui.panels import compare_view as compare
from sparrow_ui.playback import replay
from sparrow_ui.shell.session_view import prices, session_view
from sparrow_ui.shell.sidebar import frame
from sparrow_ui.shell.state import current_session_id, get_store, open_in_chat
from sparrow_ui.steps import whatif_controls as whatif
from sparrow_ui.trace import branches_view, inspector
from sparrow_ui.trace import session_overview as overview
from sparrow_ui.trace import trace_charts as charts
from sparrow_ui.trace import trace_downloads as exports
from sparrow_ui.translations.i18n import t
from sparrow_ui.translations.strings_demo import td

config = frame()
store = get_store()
st.header(t("nav.traces"))
sessions = store.sessions.list()
if not sessions:
    st.info(t("traces.no_sessions"))
    st.stop()

session_column, run_column, export_column, chat_column, compare_column = st.columns(
    [4, 4, 2, 2, 2], vertical_alignment="bottom"
)
with session_column:
    session_id = overview.pick_session(sessions, current_session_id())
try:
    view = session_view(store, session_id)
except SessionNotFound:
    st.warning(t("session.not_found", id=session_id))
    st.stop()
branches_view.branches_sidebar(store, session_id, sessions)
examples.banner(view.info)
imported_mark(view.info)
if view.info is not None and not read_only():
    with export_column.popover(t("traces.export.button"), icon=":material/ios_share:", width="stretch"):
        exports.export_menu(store, view.info, prices())
elif view.info is not None:  # a share link's viewer gets the report of what the link shows, nothing else
    with export_column:
        exports.report_button(store, view.info, prices(), key="shared_report")
if chat_column.button(t("traces.open_chat"), icon=":material/chat:", key="open_chat", width="stretch"):
    open_in_chat(session_id)
turns = view.transcript.turns
if not turns or view.metrics is None:
    st.info(t("traces.no_runs"))
    st.stop()
live_run_id = live_run_id_of(store, session_id)  # here or on another replica
if live_run_id is not None:
    note, refresh = st.columns([5, 1], vertical_alignment="center")
    note.info(t("traces.live"), icon=":material/autorenew:")
    refresh.button(t("traces.refresh"), icon=":material/refresh:", key="refresh", width="stretch")
with run_column:
    turn = overview.pick_run(turns, live_run_id)
if not read_only():  # Compare reruns turns and lists the user's sessions: not for a share link's viewer
    with compare_column:
        compare.compare_button(session_id, turn.run_id)
        add_to_dataset_button(store, session_id, turn)
run_tab, session_tab, replay_tab = overview.lazy_tabs(
    [t("traces.tab.run"), t("traces.tab.session"), t("traces.tab.replay")], key="traces_tab"
)
if run_tab.open:
    with run_tab:
        metrics = view.run_metrics[turn.run_id]
        inspector.run_summary(metrics, overview.run_status(turn, live_run_id), time_split(turn))
        if starter := store.log.run_starters(session_id).get(turn.run_id):
            st.caption(f":material/person: {t('traces.started_by', who=starter)}")
        if turn.status is None and turn.run_id != live_run_id:
            st.warning(t("chat.interrupted"), icon=":material/warning:")
        timeline = turn_timeline(turn)
        waterfall, tokens = st.columns([3, 2], gap="large")
        with waterfall:
            st.markdown(f"**{t('traces.chart.waterfall')}**")
            stopped = turn.steps[-1].number if turn.status == "cancelled" and turn.steps else None
            resumes = charts.resume_offsets(turn, timeline)
            end = metrics.duration_ms if turn.finished and not resumes else None
            charts.draw(charts.waterfall_chart(timeline, resumes, end_ms=end, stopped_step=stopped))
            if note := charts.waterfall_note(timeline):
                st.caption(note)
        with tokens:
            st.markdown(f"**{t('traces.chart.tokens')}**")
            charts.draw(charts.tokens_chart(timeline.tokens))
            if any(row.estimated for row in timeline.tokens):
                st.caption(t("traces.tokens.estimated_help"))
        st.markdown(f"**{t('traces.steps')}**")
        inspector.steps_table(metrics, turn)
        st.subheader(t("traces.inspector"))
        step = inspector.pick_step(turn)
        if step is None:
            st.caption(t("traces.inspect.no_steps"))
        else:
            inspector.inspect_step(step, prices())
            whatif.step_controls(store, config, session_id, turn, step)

if session_tab.open:
    with session_tab:
        overview.session_summary(view.metrics)
        overview.session_table(view, live_run_id)
        by_tokens, by_time = st.columns(2, gap="large")
        with by_tokens:
            st.markdown(f"**{t('traces.chart.session_tokens')}**")
            charts.draw(charts.session_tokens_chart(view.metrics.runs))
        with by_time:
            st.markdown(f"**{t('traces.chart.session_time')}**")
            splits = {turn.run_id: time_split(turn) for turn in view.transcript.turns}
            charts.draw(charts.session_time_chart(view.metrics.runs, splits))
            st.caption(td("time.split_help"))

if replay_tab.open:
    with replay_tab:
        whole = len(turns) > 1 and st.toggle(t("traces.replay.whole_session"), key="replay_whole")
        shown = view.events if whole else [e for e in view.events if e.run_id == turn.run_id]
        events = replay.replay_events(shown)
        first = 1 if whole else turns.index(turn) + 1
        replay.player(f"{session_id}:{'*' if whole else turn.run_id}", events, view.run_metrics, prices(), first)
