"""The way into presentation mode: a shareable URL (``?session=ID&present=1``) and the button that opens it."""

from __future__ import annotations

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from sparrow_ui.i18n import lang
from sparrow_ui.state import SESSION_PARAM
from sparrow_ui.strings_demo import td

PRESENT_PARAM = "present"
"""The query parameter that opens the session in presentation mode (``1``)."""
LANG_PARAM = "lang"
"""The UI language of a shared presentation link (``en`` or ``zh``)."""
PAGE = "pages/present.py"
URL_PATH = "present"


def requested() -> bool:
    """True when the URL asks for presentation mode."""
    return st.query_params.get(PRESENT_PARAM) == "1"


def follow_url(page: st.Page) -> None:
    """Go to presentation mode when the URL asks for it and another page was chosen (a shared link to ``/``)."""
    if requested() and page.url_path != URL_PATH:
        st.switch_page(PAGE, query_params=dict(st.query_params))


def presentation_button(row: DeltaGenerator) -> None:
    """A button that presents the open session (nothing when none is open)."""
    session_id = st.query_params.get(SESSION_PARAM)
    if session_id and row.button(td("present.enter"), icon=":material/co_present:", key="present_enter"):
        params = {SESSION_PARAM: session_id, PRESENT_PARAM: "1", LANG_PARAM: lang()}
        st.switch_page(PAGE, query_params=params)
