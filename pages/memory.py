"""Memory: the facts kept across sessions, per scope; search them, add one, open the session one came from, delete."""

from __future__ import annotations

import contextlib
import datetime as dt
import os

import streamlit as st

from agent_core.longterm.guard import MAX_CHARS, MemoryRefused, find_instructions
from agent_core.longterm.store import DEFAULT_SCOPE, MemoryNotFound, MemoryRecord, MemoryStore, default_scope
from agent_core.untrusted import plain as escape_markdown
from sparrow_ui.i18n import t
from sparrow_ui.sidebar import frame
from sparrow_ui.state import get_store, open_session

SHOWN = 200
"""Memories listed at most (newest first); search reaches the rest."""


def plain(text: str) -> str:
    """``text`` with Markdown escaped: a memory shows as written, never as links, images or formatting."""
    return escape_markdown(text)


def refusal(exc: MemoryRefused) -> str:
    """A refusal in words: the rule, then the guard's explanation."""
    reason = exc.reason[:1].upper() + exc.reason[1:]
    return t("memory.refused", rule=t(f"memory.rule.{exc.rule}"), reason=reason)


def save_fact(memories: MemoryStore, scope: str) -> None:
    """Form callback: save the typed fact, keep a notice for this rerun, clear the field only on success."""
    try:
        record = memories.add(st.session_state.get("memory_fact", ""), scope)
    except MemoryRefused as exc:
        st.session_state["memory_notice"] = ("error", refusal(exc))
        return
    saved = t("memory.exists" if record.existing else "memory.saved", id=record.id)
    st.session_state["memory_notice"] = ("success", saved)
    st.session_state["memory_fact"] = ""


def source_line(record: MemoryRecord) -> str:
    """When, who, how well it matched, and (when it has no open-able session) where it came from."""
    parts = [f"#{record.id}", dt.datetime.fromtimestamp(record.created_at).strftime("%Y-%m-%d %H:%M")]
    parts.append(t("memory.by_agent") if record.origin == "agent" else t("memory.by_user"))
    if record.score is not None:
        parts.append(t("memory.score", score=record.score))
    if record.source_session_id is None:
        parts.append(t("memory.no_source"))
    elif record.source_deleted:
        parts.append(t("memory.source_deleted", id=record.source_session_id))
    return " · ".join(parts)


def show(memories: MemoryStore, record: MemoryRecord, scope: str) -> None:
    """One memory: its text, where it came from, and its buttons."""
    with st.container(border=True):
        body, actions = st.columns([5, 2])
        body.markdown(plain(record.text))
        body.caption(source_line(record))
        if find_instructions(record.text):
            body.warning(t("memory.caution"), icon=":material/warning:")
        if record.source_session_id and not record.source_deleted:
            label, key = record.source_title or t("memory.open_source"), f"memory_open_{record.id}"
            if actions.button(label, key=key, icon=":material/open_in_new:", help=t("memory.open_source")):
                open_session(record.source_session_id)
                st.switch_page("pages/chat.py", query_params={"session": record.source_session_id})
        if actions.button(t("memory.delete"), key=f"memory_delete_{record.id}", icon=":material/delete:"):
            with contextlib.suppress(MemoryNotFound):
                memories.delete(record.id, scope=scope)
            st.toast(t("memory.deleted"))
            st.rerun()


frame()
memories = MemoryStore(get_store().engine)
st.header(t("nav.memory"))
st.caption(t("memory.intro"))
try:
    run_scope = default_scope()
except MemoryRefused:
    st.error(t("memory.scope_env_invalid", scope=os.environ.get("SPARROW_MEMORY_SCOPE", "")))
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
if not records:
    st.info(t("memory.no_match") if query else t("memory.none"))
for item in records:
    show(memories, item, scope)
