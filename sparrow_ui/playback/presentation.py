"""Presentation mode: a session replayed for a projector, one step at a time, with the keyboard or a clicker.

The same replay frames and the same chat and trace components as the Traces page's Replay, at the full
width of the window with larger type and no sidebar. → / Space / Page Down go one step on (the step's reply
streams in), ← / Page Up one back, Home / End to the first / last; the current step is the only open one,
outlined, and brought into view (presentation_style.py). The keys are ``st.button`` shortcuts. Entered from
the Traces page's Replay, it starts at the step Replay showed. The URL
(``/present?session=ID&present=1``, or ``/?session=ID&present=1``; ``&lang=zh`` for Chinese) opens a session
straight into it.
"""

from __future__ import annotations

from typing import Any

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from agent_core.guards.untrusted import plain
from agent_core.store import SessionNotFound
from sparrow_ui.chat import example_sessions as examples
from sparrow_ui.elements.imported_mark import imported_mark
from sparrow_ui.playback import replay
from sparrow_ui.playback.presentation_style import follow_step, present_style
from sparrow_ui.shell.navigation import through_app
from sparrow_ui.shell.presentation_link import LANG_PARAM, PRESENT_PARAM, start_frame
from sparrow_ui.shell.session_view import prices, session_view
from sparrow_ui.shell.state import SESSION_PARAM, current_session_id, get_store
from sparrow_ui.translations.i18n import LANGUAGES, t
from sparrow_ui.translations.strings_demo import td

STREAM_SPEED = 2.0
"""Replies stream in at twice the replay's 1× pace: fast enough to keep a talk moving."""
HIDDEN_KEYS = (("present_space", "Space", 1), ("present_pagedown", "PageDown", 1), ("present_pageup", "PageUp", -1))
"""Extra keys (a clicker sends Page Down / Page Up) on buttons kept out of sight."""


def presentation() -> None:
    """The page: the open session (the URL's) in presentation mode."""
    through_app()
    if (language := st.query_params.get(LANG_PARAM)) in LANGUAGES:
        st.session_state["lang_choice"] = language  # no sidebar here: a shared link says the language
    present_style()
    session_id = current_session_id()
    try:
        view = session_view(get_store(), session_id)
    except SessionNotFound:
        view = session_view(get_store(), None)
    events = replay.replay_events(view.events)
    frames = replay.frames(events)
    if view.info is None or not frames:
        st.info(td("present.no_session"))
        _exit_button(st.container(), session_id)
        return
    state = replay.cursor(f"present:{view.info.id}", len(frames))
    if (entered := start_frame(view.info.id, events, [f.end for f in frames])) is not None:
        state.update(cursor=entered, animate=False)
    _header(view.info.title, view.info.id, state)
    examples.banner(view.info, compact=True)
    imported_mark(view.info)
    scene = replay.Scene(events, frames, view.run_metrics, prices(), 1, widths=(2, 3), after_draw=follow_step)
    scene.open_at(state, STREAM_SPEED)


def _header(title: str, session_id: str, state: dict[str, Any]) -> None:
    """The session's title, the step buttons with their keys, and the way out."""
    row = st.container(horizontal=True, vertical_alignment="center", key="present_controls")
    row.container(key="present_title").markdown(f"**{plain(title)}**", help=plain(title))
    at_start, at_end = state["cursor"] == 0, state["cursor"] == state["count"] - 1
    row.button("", icon=":material/first_page:", key="present_first", help=t("traces.replay.restart"),
               on_click=replay.go, kwargs={"to": 0}, disabled=at_start, shortcut="Home")  # fmt: skip
    row.button(t("traces.replay.previous"), icon=":material/skip_previous:", key="present_previous",
               on_click=replay.go, args=(-1,), disabled=at_start, shortcut="Left")  # fmt: skip
    row.button(t("traces.replay.next"), icon=":material/skip_next:", key="present_next", type="primary",
               on_click=replay.go, args=(1,), disabled=at_end, shortcut="Right", help=td("present.keys"))  # fmt: skip
    row.button("", icon=":material/last_page:", key="present_last", help=t("traces.replay.end"),
               on_click=replay.go, kwargs={"to": -1}, disabled=at_end, shortcut="End")  # fmt: skip
    for key, shortcut, by in HIDDEN_KEYS:
        row.button(shortcut, key=key, on_click=replay.go, args=(by,), shortcut=shortcut)
    _exit_button(row, session_id)


def _exit_button(row: DeltaGenerator, session_id: str | None) -> None:
    """Back to the Traces page, with the session still open."""
    if row.button(td("present.exit"), icon=":material/close:", key="present_exit"):
        params = {SESSION_PARAM: session_id} if session_id else {}
        st.query_params.pop(PRESENT_PARAM, None)
        st.switch_page("pages/traces.py", query_params=params)
