"""The shipped example sessions in the app: offered on the empty Chat page, labelled wherever they are shown."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from agent_core.examples import EXAMPLES, Example, example_name, open_example, split_examples
from agent_core.formatting import format_timestamp
from agent_core.guards.untrusted import plain
from agent_core.store import SessionFileError, SessionInfo, SessionStore
from sparrow_ui.shell.state import open_in_chat
from sparrow_ui.translations.i18n import t
from sparrow_ui.translations.strings_demo import td


def offer(store: SessionStore) -> None:
    """One "Open an example session" button per example; a click imports it (once) and opens it in Chat."""
    st.markdown(f"**{td('examples.offer_title')}**")
    st.caption(td("examples.offer_body"))
    example_buttons(store, EXAMPLES)


def example_buttons(store: SessionStore, items: Sequence[Example], *, key: str = "example") -> None:
    """An "Open an example session" button for each of ``items``."""
    for item in items:
        if st.button(
            td("examples.open", title=item.title),
            key=f"{key}_{item.name}",
            help=item.summary,
            icon=":material/auto_stories:",
        ):
            try:
                info = open_example(store, item.name)
            except (OSError, SessionFileError) as exc:
                st.error(f"{item.name}: {exc}")
            else:
                open_in_chat(info.id)


def banner(info: SessionInfo | None, *, compact: bool = False) -> None:
    """Say that the open session is an example (nothing for the user's own sessions); ``compact``: one line."""
    name = example_name(info)
    if name is None:
        return
    text = td("examples.banner", name=plain(name))  # the name is the file's word: no markup from it
    if compact:
        st.caption(f":material/auto_stories: {text}")
    else:
        st.info(text, icon=":material/auto_stories:")


def own_sessions(store: SessionStore) -> list[SessionInfo]:
    """The user's own sessions, most recently updated first (the examples are listed apart)."""
    return split_examples(store.sessions.list())[0]


def examples_list(store: SessionStore) -> None:
    """The imported examples, apart from the user's sessions, each with a button to open it; then the others."""
    examples = split_examples(store.sessions.list())[1]
    imported = {example_name(info) for info in examples}
    with st.expander(f"{td('examples.section')} ({len(examples)})", icon=":material/auto_stories:"):
        st.caption(td("examples.section_help"))
        for info in examples:
            text, action = st.columns([5, 1], vertical_alignment="center")
            text.markdown(f"**{plain(info.title)}** · {format_timestamp(info.updated_at)} · `{info.id}`")
            if action.button(t("session.open"), key=f"open_example_{info.id}"):
                open_in_chat(info.id)
        example_buttons(store, [e for e in EXAMPLES if e.name not in imported], key="more_example")
