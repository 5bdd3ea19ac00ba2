"""The sidebar's session controls: new chat, save a snapshot, download, upload, and the session's totals."""

from __future__ import annotations

import streamlit as st

from agent_core.guards.untrusted import plain
from agent_core.store import SessionFileError, SessionStore, export_filename, export_session, import_session
from sparrow_ui.elements.literal import literal
from sparrow_ui.elements.uploader_text import uploader_words
from sparrow_ui.shell.session_view import SessionView
from sparrow_ui.shell.state import open_session
from sparrow_ui.steps import renderer as render
from sparrow_ui.translations.i18n import t


def session_controls(store: SessionStore, view: SessionView, *, live_run_id: str | None) -> None:
    """Draw the controls in the sidebar; a run in progress (``live_run_id``) disables starting a new chat."""
    busy = live_run_id is not None
    with st.sidebar:
        st.subheader(t("session.header"))
        if st.button(t("session.new"), icon=":material/add:", key="new_chat", width="stretch", disabled=busy):
            open_session(None)
            st.rerun()
        if view.info is not None:
            session_id = view.info.id
            st.caption(plain(view.info.title))
            with (
                st.popover(t("session.save"), icon=":material/bookmark_add:", width="stretch"),
                st.container(width=280),  # the same width before and after saving
            ):
                name = st.text_input(t("session.snapshot_name"), key="snapshot_name", max_chars=100)
                if st.button(t("session.save"), key="snapshot_save", type="primary"):
                    snapshot = store.snapshots.save(session_id, name.strip() or None)
                    st.success(t("session.saved", name=literal(snapshot.name)), icon=":material/check:")
            st.download_button(
                t("session.download"),
                icon=":material/download:",
                data=lambda: export_session(store, session_id),
                file_name=export_filename(view.info),
                mime="application/json",
                width="stretch",
                on_click="ignore",
            )
        uploader_words()
        upload_key = f"upload_{st.session_state.get('upload_round', 0)}"
        uploaded = st.file_uploader(t("session.upload"), type=["json"], key=upload_key)
        if uploaded is not None:
            try:
                imported = import_session(store, uploaded.getvalue())
            except SessionFileError as exc:
                st.error(t("session.upload_failed", error=str(exc)))
            else:
                st.session_state["upload_round"] = st.session_state.get("upload_round", 0) + 1
                st.session_state["flash"] = t("session.uploaded", title=imported.title)
                open_session(imported.id)
                st.rerun()
        _totals(view, live_run_id)


def _totals(view: SessionView, live_run_id: str | None) -> None:
    """The session's totals; while a run is live, those of its finished turns (the live one counts in the trace)."""
    if live_run_id is None:
        metrics, label = view.metrics, t("session.metrics")
    else:
        finished = [turn for turn in view.transcript.turns if turn.run_id != live_run_id]
        metrics, label = view.totals(finished), t("session.metrics_done")
    if metrics is not None:
        st.caption(f":material/speed: {label}: {literal(render.metrics_line(metrics))}")
        st.caption(f":material/build: {render.tool_summary(metrics.tools)}")
