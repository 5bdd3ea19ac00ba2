"""The way into presentation mode: a shareable URL (``?session=ID&present=1``) and the button that opens it."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from agent_core.events import Event
from sparrow_ui.shell.state import SESSION_PARAM
from sparrow_ui.translations.i18n import lang
from sparrow_ui.translations.strings_demo import td

PRESENT_PARAM = "present"
"""The query parameter that opens the session in presentation mode (``1``)."""
LANG_PARAM = "lang"
"""The UI language of a shared presentation link (``en`` or ``zh``)."""
PAGE = "pages/present.py"
URL_PATH = "present"
_FROM_REPLAY = "present_from_replay"
"""This tab's (session id, replay position) when presentation mode was entered from Replay."""


def requested() -> bool:
    """True when the URL asks for presentation mode."""
    return st.query_params.get(PRESENT_PARAM) == "1"


def follow_url(page: st.Page) -> None:
    """Go to presentation mode when the URL asks for it and another page was chosen (a shared link to ``/``)."""
    if requested() and page.url_path != URL_PATH:
        st.switch_page(PAGE, query_params=dict(st.query_params))


def presentation_button(row: DeltaGenerator, at: tuple[str, int] | None = None) -> None:
    """A button that presents the open session (nothing when none is open), from ``at`` (see ``start_frame``)."""
    session_id = st.query_params.get(SESSION_PARAM)
    if session_id and row.button(td("present.enter"), icon=":material/co_present:", key="present_enter"):
        st.session_state[_FROM_REPLAY] = (session_id, at)
        params = {SESSION_PARAM: session_id, PRESENT_PARAM: "1", LANG_PARAM: lang()}
        st.switch_page(PAGE, query_params=params)


def start_frame(session_id: str, events: Sequence[Event], frame_ends: Sequence[int]) -> int | None:
    """The frame to start at when this tab just came from Replay (once), else None.

    Replay's position is ``(run id, how many of that run's events it showed)``; presentation mode replays the
    whole session, so it starts at the first frame that shows that many of the run's events.
    """
    entry = st.session_state.pop(_FROM_REPLAY, None)
    if not entry or entry[0] != session_id or entry[1] is None:
        return None
    run_id, count = entry[1]
    seen = 0
    for index, event in enumerate(events):
        seen += event.run_id == run_id
        if seen == count:
            return next((i for i, end in enumerate(frame_ends) if end > index), None)
    return None
