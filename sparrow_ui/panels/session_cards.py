"""The Sessions page's parts: the search and filter bar, one card per session, and the page picker.

Every widget of a card is keyed by its session's id, popovers included, so an action always applies to the
session it was opened from, however the list re-sorts between clicks.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from agent_core.formatting import clip, format_timestamp
from agent_core.guards.untrusted import neutralize, plain
from agent_core.store import SessionInfo, SessionNotFound, SessionStore, SnapshotNotFound
from sparrow_ui.access.ownership import owner_note, share_menu
from sparrow_ui.chat.run_control import live_run_id
from sparrow_ui.elements.imported_mark import imported_mark
from sparrow_ui.panels.compare_view import protocol_name
from sparrow_ui.panels.session_list import NO_RUN, Filters, Row, page_count
from sparrow_ui.shell.state import open_in_chat
from sparrow_ui.translations.i18n import status_label, t
from sparrow_ui.translations.strings_demo import td

STATUSES = ("completed", "cancelled", "error", "format_error", "max_steps", "timeout", NO_RUN)
_PAGE = "sessions_page"


def filter_bar(sessions: Sequence[SessionInfo]) -> Filters:
    """Search words, model, status and date range, on one row."""
    text, models, statuses, days = st.columns([3, 2, 2, 2], vertical_alignment="bottom")
    words = text.text_input(td("sessions.search"), key="sessions_search", placeholder=td("sessions.search_hint"))
    known = sorted({info.config.model for info in sessions if info.config.model})
    chosen_models = models.multiselect(td("sessions.model"), known, key="sessions_models")
    chosen_statuses = statuses.multiselect(
        td("sessions.status"), STATUSES, key="sessions_statuses", format_func=_status_word
    )
    picked = days.date_input(td("sessions.dates"), value=(), key="sessions_dates", format="YYYY-MM-DD")  # pyright: ignore[reportCallIssue, reportArgumentType]  # () opens an empty range
    since, until = (*picked, None, None)[:2] if isinstance(picked, (tuple, list)) else (picked, picked)
    return Filters(words.strip(), tuple(chosen_models), tuple(chosen_statuses), since, until)


def _status_word(status: str) -> str:
    return td("sessions.no_run") if status == NO_RUN else status_label(status)


def page_picker(total: int, shown_filters: Filters) -> int:
    """Which page to show (Previous / Next, and where we are); back to the first when the filters change."""
    pages = page_count(total)
    state = st.session_state.setdefault(_PAGE, {"filters": shown_filters, "page": 1})
    if state["filters"] != shown_filters:
        state.update(filters=shown_filters, page=1)
    state["page"] = min(state["page"], pages)
    if pages > 1:
        row = st.container(horizontal=True, vertical_alignment="center")
        if row.button(t("traces.replay.previous"), icon=":material/chevron_left:", key="sessions_prev",
                      disabled=state["page"] == 1):  # fmt: skip
            state["page"] -= 1
            st.rerun()
        row.caption(td("sessions.page", n=state["page"], total=pages, count=total))
        if row.button(td("sessions.next"), icon=":material/chevron_right:", key="sessions_next",
                      disabled=state["page"] == pages):  # fmt: skip
            state["page"] += 1
            st.rerun()
    return int(state["page"])


def session_card(store: SessionStore, row: Row) -> None:
    """One session: its title (numbered among alike ones), what it holds, and its actions."""
    info = row.info
    with st.container(border=True, key=f"card_{info.id}"):
        top, actions = st.columns([4, 3])
        top.markdown(f"**{plain(row.title)}**", help=plain(info.title) if len(info.title) > 60 else None)
        top.caption(neutralize(_about(row)))
        with top:
            imported_mark(info)
            owner_note(store, info)
            share_menu(store, info)
        _actions(store, info, actions)
        _snapshots(store, info)


def _about(row: Row) -> str:
    info, digest = row.info, row.digest
    turns = td("sessions.turns", n=len(digest.questions))
    parts = [format_timestamp(info.updated_at), info.config.model or "—", protocol_name(info.config.protocol), turns]
    if digest.questions:
        parts.append(_status_word(digest.status or NO_RUN))
    if len(digest.questions) > 1:
        parts.append(td("sessions.last_question", question=clip(digest.questions[-1], 80)))
    return " · ".join(parts) + f" · `{info.id}`"


def _actions(store: SessionStore, info: SessionInfo, column: DeltaGenerator) -> None:
    row = column.container(horizontal=True, horizontal_alignment="right")  # no column squeezes a label
    left = middle = right = row
    if left.button(t("session.open"), key=f"open_{info.id}", type="primary"):
        open_in_chat(info.id)
    with middle.popover(t("session.rename"), key=f"rename_pop_{info.id}"):
        title = st.text_input(t("session.rename"), value=info.title, key=f"title_{info.id}", max_chars=200)
        if st.button(t("session.rename_ok"), key=f"rename_{info.id}"):
            store.sessions.rename(info.id, title)
            st.rerun()
    busy = live_run_id(store, info.id) is not None  # a run in progress here or on another replica
    with right.popover(t("session.delete"), icon=":material/delete:", disabled=busy, key=f"delete_pop_{info.id}"):
        st.warning(t("session.delete_confirm", title=plain(info.title)))
        if st.button(t("session.delete_yes"), key=f"delete_{info.id}", type="primary"):
            with contextlib.suppress(SessionNotFound):
                store.sessions.delete(info.id)
            st.session_state["flash"] = t("session.deleted")
            st.rerun()


def _snapshots(store: SessionStore, info: SessionInfo) -> None:
    snapshots = store.snapshots.list(info.id)
    if not snapshots:
        return
    with st.expander(f"{t('session.snapshots')} ({len(snapshots)})", icon=":material/photo_camera:"):
        for snapshot in snapshots:
            name, fork = st.columns([4, 2])
            name.markdown(f"**{plain(snapshot.name)}** · {format_timestamp(snapshot.created_at)}")
            if fork.button(t("session.fork"), key=f"fork_{snapshot.id}"):
                try:
                    forked = store.snapshots.fork(snapshot.id)
                except SnapshotNotFound as exc:
                    st.error(neutralize(str(exc)))
                else:
                    open_in_chat(forked.id)


__all__ = ["filter_bar", "page_picker", "session_card"]
