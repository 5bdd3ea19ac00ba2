"""The "Imported copy" mark: a session that came in from a session file says so wherever it is listed or opened."""

from __future__ import annotations

import streamlit as st

from agent_core.examples import example_name
from agent_core.formatting import format_timestamp
from agent_core.store import SessionInfo
from sparrow_ui.translations.i18n import t


def imported_mark(info: SessionInfo | None) -> None:
    """A small "Imported copy" badge, the import's date on hover; none for an example (its banner says more)."""
    if info is None or info.imported_at is None or example_name(info) is not None:
        return
    when = format_timestamp(info.imported_at)
    st.badge(
        t("session.imported"), icon=":material/file_download:", color="gray", help=t("session.imported_at", when=when)
    )
