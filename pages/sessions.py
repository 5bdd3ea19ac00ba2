"""Sessions: every saved conversation and its snapshots; open, rename, delete, fork, import."""

from __future__ import annotations

import contextlib

import streamlit as st

from agent_core.formatting import format_timestamp
from agent_core.store import SessionNotFound, SnapshotNotFound
from agent_core.untrusted import neutralize, plain
from sparrow_ui import examples
from sparrow_ui.compare import protocol_name
from sparrow_ui.i18n import t
from sparrow_ui.imported import imported_mark
from sparrow_ui.ownership import owner_note, share_menu
from sparrow_ui.runs import live_run_id
from sparrow_ui.sidebar import frame
from sparrow_ui.state import get_store, open_in_chat

frame()
store = get_store()
st.header(t("nav.sessions"))
sessions = examples.own_sessions(store)
if flash := st.session_state.pop("flash", None):
    st.success(flash, icon=":material/check:")
if not sessions:
    st.info(t("session.none"))

for info in sessions:
    with st.container(border=True):
        top, actions = st.columns([4, 3])
        top.markdown(f"**{plain(info.title)}**")
        model = info.config.model or "—"
        about = f"{format_timestamp(info.updated_at)} · {model} · {protocol_name(info.config.protocol)} · `{info.id}`"
        top.caption(neutralize(about))
        with top:
            imported_mark(info)
            owner_note(store, info)
            share_menu(store, info)
        left, middle, right = actions.columns(3)
        if left.button(t("session.open"), key=f"open_{info.id}", type="primary"):
            open_in_chat(info.id)
        with middle.popover(t("session.rename")):
            title = st.text_input(t("session.rename"), value=info.title, key=f"title_{info.id}", max_chars=200)
            if st.button(t("session.rename_ok"), key=f"rename_{info.id}"):
                store.rename_session(info.id, title)
                st.rerun()
        busy = live_run_id(store, info.id) is not None  # a run in progress here or on another replica
        with right.popover(t("session.delete"), icon=":material/delete:", disabled=busy):
            st.warning(t("session.delete_confirm", title=plain(info.title)))
            if st.button(t("session.delete_yes"), key=f"delete_{info.id}", type="primary"):
                with contextlib.suppress(SessionNotFound):
                    store.delete_session(info.id)
                st.session_state["flash"] = t("session.deleted")
                st.rerun()
        snapshots = store.list_snapshots(info.id)
        if snapshots:
            with st.expander(f"{t('session.snapshots')} ({len(snapshots)})", icon=":material/photo_camera:"):
                for snapshot in snapshots:
                    name, fork = st.columns([4, 2])
                    name.markdown(f"**{plain(snapshot.name)}** · {format_timestamp(snapshot.created_at)}")
                    if fork.button(t("session.fork"), key=f"fork_{snapshot.id}"):
                        try:
                            forked = store.fork_snapshot(snapshot.id)
                        except SnapshotNotFound as exc:
                            st.error(neutralize(str(exc)))
                        else:
                            open_in_chat(forked.id)

examples.examples_list(store)
