"""The row of actions under each finished turn on the Chat page: its figures, Trace and Replay.

One function draws the whole row, so another action (such as "Run again with…") is added in one place.
"""

from __future__ import annotations

import streamlit as st

from agent_core.engine.state import RunState
from agent_core.views.metrics import RunMetrics
from sparrow_ui.chat.add_to_dataset import add_to_dataset_button
from sparrow_ui.shell.state import get_store, open_in_traces, select_turn
from sparrow_ui.steps import renderer as render
from sparrow_ui.trace.session_overview import show_replay_of
from sparrow_ui.translations.i18n import t


def turn_actions(turn: RunState, metrics: RunMetrics | None, selected: str | None, session_id: str | None) -> None:
    """Status and figures under a finished answer, then labelled Trace and Replay buttons."""
    st.caption(render.turn_caption(turn, metrics))
    shown = turn.run_id == selected
    with st.container(horizontal=True, gap="small"):
        st.button(
            t("turn.trace") + (f" · {t('turn.shown')}" if shown else ""),
            icon=":material/manage_search:",
            key=f"select_{turn.run_id}",
            help=t("turn.trace_help"),
            on_click=select_turn,
            args=(turn.run_id,),
            type="secondary" if shown else "tertiary",
            width="content",
        )
        if session_id is not None and st.button(
            t("turn.replay"),
            icon=":material/play_circle:",
            key=f"replay_{turn.run_id}",
            help=t("turn.replay_help"),
            type="tertiary",
            width="content",
        ):
            show_replay_of(turn.run_id)
            open_in_traces(session_id)
        if session_id is not None:
            add_to_dataset_button(get_store(), session_id, turn)
