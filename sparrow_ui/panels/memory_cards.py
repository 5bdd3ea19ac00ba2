"""The Memory page's pieces: a memory as a card (text, origin, buttons) and the form callback that adds one."""

from __future__ import annotations

import contextlib

import streamlit as st

from agent_core.formatting import format_timestamp
from agent_core.guards.untrusted import plain as escape_markdown
from agent_core.longterm.guard import MemoryRefused, find_instructions
from agent_core.longterm.memory import MemoryNotFound, MemoryRecord, MemoryStore
from sparrow_ui.shell.state import open_in_chat
from sparrow_ui.translations.i18n import t


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
    parts = [f"#{record.id}", format_timestamp(record.created_at)]
    by = {"agent": "memory.by_agent", "outside": "memory.by_agent_outside"}.get(record.origin, "memory.by_user")
    parts.append(t(by))
    if record.rank is not None:
        parts.append(t("memory.rank", rank=record.rank))
    if record.source_session_id is None:
        parts.append(t("memory.no_source"))
    elif record.source_deleted:
        parts.append(t("memory.source_deleted", id=record.source_session_id))
    return " · ".join(parts)


def memory_card(memories: MemoryStore, record: MemoryRecord, scope: str) -> None:
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
                open_in_chat(record.source_session_id)
        if actions.button(t("memory.delete"), key=f"memory_delete_{record.id}", icon=":material/delete:"):
            with contextlib.suppress(MemoryNotFound):
                memories.delete(record.id, scope=scope)
            st.toast(t("memory.deleted"))
            st.rerun()
