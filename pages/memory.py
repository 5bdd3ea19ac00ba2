"""Memory: the facts kept across sessions, per scope; search them, add one, open the session one came from, delete."""

from __future__ import annotations

import streamlit as st

from agent_core.env_settings import env_settings
from agent_core.longterm.guard import DEFAULT_SCOPE, MAX_CHARS, MemoryRefused, default_scope
from agent_core.longterm.memory import MemoryStore
from sparrow_ui.access.ownership import claim_memories
from sparrow_ui.panels.memory_cards import memory_card, save_fact
from sparrow_ui.shell.sidebar import frame
from sparrow_ui.shell.state import get_store
from sparrow_ui.translations.i18n import t

SHOWN = 200
"""Memories listed at most (newest first); search reaches the rest."""


frame()
store = get_store()
memories = MemoryStore(store.engine, actor=store.actor)
st.header(t("nav.memory"))
st.caption(t("memory.intro"))
try:
    run_scope = default_scope()
except MemoryRefused:
    st.error(t("memory.scope_env_invalid", scope=env_settings().sparrow_memory_scope or ""))
    run_scope = DEFAULT_SCOPE
chosen = st.selectbox(
    t("memory.scope"),
    list(dict.fromkeys([run_scope, *memories.scopes()])),
    key="memory_scope",
    accept_new_options=True,
    help=t("memory.scope_help", scope=run_scope),
)
scope = chosen or run_scope

with st.expander(t("memory.add_title"), icon=":material/add_notes:", expanded=True), st.form("memory_add_form"):
    st.text_area(t("memory.add_label"), key="memory_fact", max_chars=MAX_CHARS, placeholder=t("memory.add_placeholder"))
    st.form_submit_button(t("memory.add"), key="memory_save", on_click=save_fact, args=(memories, scope))
notice = st.session_state.pop("memory_notice", None)
if notice is not None:
    kind, message = notice
    (st.error if kind == "error" else st.success)(message)

query = st.text_input(t("memory.search"), key="memory_query", placeholder=t("memory.search_placeholder")).strip()
try:
    records = memories.search(query, scope, limit=50) if query else memories.list(scope, limit=SHOWN)
except MemoryRefused:  # a scope name typed in the box that is not one
    st.error(t("memory.scope_invalid", scope=scope))
    st.stop()
if query:
    st.caption(t("memory.matches_one" if len(records) == 1 else "memory.matches", count=len(records), query=query))
else:
    total = memories.count(scope)
    st.caption(t("memory.count_one" if total == 1 else "memory.count", count=total, scope=scope))
    claim_memories(memories)
if not records:
    st.info(t("memory.no_match") if query else t("memory.none"))
for item in records:
    memory_card(memories, item, scope)
