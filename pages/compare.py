"""Compare: two turns of any sessions aligned step by step; run a turn again with another model, protocol or setting."""

from __future__ import annotations

import streamlit as st

from agent_core.store import SessionNotFound
from sparrow_ui.panels import compare_live, compare_steps
from sparrow_ui.panels import compare_view as compare
from sparrow_ui.shell.sidebar import frame
from sparrow_ui.shell.state import get_store
from sparrow_ui.translations.strings_demo import td

config = frame()
store = get_store()
st.header(td("nav.compare"))
st.caption(td("compare.intro"))
sessions = store.sessions.list()
if not sessions:
    st.info(td("compare.need_turns"))
    st.stop()

left_column, right_column = st.columns(2, gap="large")
try:
    with left_column:
        st.subheader(td("compare.left"))
        left = compare.pick_turn(sessions, store, "left")
    with right_column:
        st.subheader(td("compare.right"))
        other = compare.other_turn(store, sessions, st.query_params.get("left", ""))
        right = compare.pick_turn(sessions, store, "right", default=other)
except SessionNotFound as exc:
    st.warning(str(exc))
    st.stop()
right_session = st.query_params.get("right", "").partition(":")[0]
if right_session and compare_live.follow_branch(store, right_session, right_column):
    st.rerun()  # the branch ended (or waits for an approval): draw the page again with it
if left is None or right is None:
    st.stop()
with left_column:
    compare.rerun_form(store, config, st.query_params["left"].partition(":")[0], left, right_column)

comparison = compare.comparison_of(left, right)
compare_steps.summary(comparison)
st.subheader(td("compare.metrics"))
compare.metrics_table(comparison)
st.subheader(td("compare.steps"))
compare_steps.steps(comparison)
