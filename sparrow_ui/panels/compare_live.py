"""A branch still running, drawn on the Compare page beside its original as its events come (approvals asked)."""

from __future__ import annotations

from typing import Any

import streamlit as st

from agent_core.events import Event
from agent_core.store import SessionStore
from agent_core.views.transcript import Transcript
from sparrow_ui.chat.live_turn import approval_boxes
from sparrow_ui.chat.run_control import active_run, watch
from sparrow_ui.shell.session_view import prices
from sparrow_ui.steps import renderer as render
from sparrow_ui.translations.strings_whatif import tw


def follow_branch(store: SessionStore, session_id: str, place: Any) -> bool:
    """While the session's run is live: draw it in ``place`` until it ends (True), else do nothing (False)."""
    live = active_run(store, session_id)
    if live is None:
        return False
    seen = list(live.events)  # read once: an event arriving meanwhile is then followed, not lost
    transcript = Transcript.from_events([*live.base, *seen])
    with place:
        st.caption(f":material/autorenew: {tw('diff.streaming')}")
        turn = transcript.turn(live.run_id)
        if turn is not None:
            approval_boxes(live, turn)
        slot = st.empty()

    def redraw(new: list[Event]) -> None:
        transcript.extend(new)
        shown = transcript.turn(live.run_id)
        if shown is not None:
            with slot.container():
                render.steps(shown, prices(), live=True)

    redraw([])
    watch(live, redraw, since=len(seen))
    return True
