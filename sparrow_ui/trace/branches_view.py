"""The branches of the open session in the Traces sidebar: the original, its forks and theirs, each one click away."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from agent_core.formatting import clip
from agent_core.runtime.branches import branch_tree
from agent_core.store import SessionInfo, SessionNotFound, SessionStore
from sparrow_ui.elements.literal import literal
from sparrow_ui.shell.state import open_session
from sparrow_ui.translations.strings_whatif import tw

_ICON = {"completed": ":material/check_circle:", None: ":material/autorenew:"}


def branches_sidebar(store: SessionStore, session_id: str, sessions: Sequence[SessionInfo]) -> None:
    """The tree of branches ``session_id`` belongs to (nothing when it has none): status, answer, open.

    ``sessions``: the sessions the page lists; a session that is no fork and has none is told from them, without
    reading any events (the tree reads each branch's last turn).
    """
    here = next((s for s in sessions if s.id == session_id), None)
    if here is None or (here.parent_id is None and not any(s.parent_id == session_id for s in sessions)):
        return
    try:
        tree = branch_tree(store, session_id)
    except SessionNotFound:
        return
    if not tree.children:
        return
    with st.sidebar:
        st.markdown(f"**:material/account_tree: {tw('branches.title')}**")
        for depth, branch in tree.walk():
            where = tw("branches.at_step", n=branch.forked.at_step) if branch.forked else ""
            name = tw("branches.original") if depth == 0 else where or clip(branch.session.title, 40, one_line=True)
            answer = clip(branch.answer or (branch.status or tw("branches.running")), 48, one_line=True)
            label = f"{'· ' * depth}{literal(name)} — {literal(answer)}"
            current = branch.session.id == session_id
            clicked = st.button(
                label,
                key=f"branch_{branch.session.id}",
                icon=_ICON.get(branch.status, ":material/error:"),
                type="primary" if current else "tertiary",
                disabled=current,
            )
            if clicked:
                open_session(branch.session.id)
                st.rerun()
