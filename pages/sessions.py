"""Sessions: every saved conversation and its snapshots; search, filter, open, rename, delete, fork, import."""

from __future__ import annotations

import streamlit as st

from agent_core.experiments.records import experiment_session_ids
from agent_core.store.sessions import session_digests
from sparrow_ui.chat import example_sessions as examples
from sparrow_ui.panels.session_cards import filter_bar, page_picker, session_card
from sparrow_ui.panels.session_list import page, rows
from sparrow_ui.shell.sidebar import frame
from sparrow_ui.shell.state import get_store
from sparrow_ui.translations.i18n import t
from sparrow_ui.translations.strings_demo import td
from sparrow_ui.translations.strings_experiments import te

frame()
store = get_store()
st.header(t("nav.sessions"))
sessions = examples.own_sessions(store)
items = experiment_session_ids(store) & {info.id for info in sessions}  # experiments' runs: hidden unless asked
if items and not st.toggle(te("sessions.experiment_runs", count=len(items)), key="sessions_experiment_runs"):
    sessions = [info for info in sessions if info.id not in items]
if flash := st.session_state.pop("flash", None):
    st.success(flash, icon=":material/check:")
if not sessions:
    st.info(t("session.none"))
else:
    filters = filter_bar(sessions)
    listed = rows(sessions, session_digests(store.engine, [info.id for info in sessions]), filters)
    if not listed:
        st.info(td("sessions.no_match"))
    number = page_picker(len(listed), filters)
    for row in page(listed, number):
        session_card(store, row)

examples.examples_list(store)
