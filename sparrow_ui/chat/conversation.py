"""The chat column and the trace panel: one composition for the live Chat page and for the replay player."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import nullcontext

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from agent_core.engine.state import RunState, StepState
from agent_core.models.pricing import PriceTable
from agent_core.views.metrics import RunMetrics
from sparrow_ui.chat.turn_actions import turn_actions
from sparrow_ui.shell.layout import SELECTED_KEY
from sparrow_ui.steps import renderer as render
from sparrow_ui.translations.i18n import t

PAGE_TURNS = 20
"""Turns drawn at first on the Chat page; older ones appear on request, so long sessions stay fast."""
_SHOWN_TURNS = "visible_turns"


def conversation(
    turns: Sequence[RunState],
    run_metrics: dict[str, RunMetrics],
    *,
    selected: str | None = None,
    pickable: bool = False,
    live_run_id: str | None = None,
    under_live: Callable[[RunState], None] | None = None,
    ended: bool = False,
    session_id: str | None = None,
) -> DeltaGenerator | None:
    """Each turn's question and answer bubble; returns the live turn's answer slot, to redraw as it streams.

    ``pickable`` gives each finished turn its actions (Trace, Replay: turn_actions.py) and highlights
    ``selected``, the turn whose trace is shown; ``session_id`` is the session they belong to.
    ``under_live`` draws what goes under the live answer (the approvals it waits on). ``ended``: the
    recording is over, so a turn without an end was interrupted (a replay's last frame).
    """
    slot = None
    for turn in turns:
        highlight = pickable and turn.run_id == selected and len(turns) > 1
        with st.container(key=SELECTED_KEY) if highlight else nullcontext():
            slot = _turn(turn, run_metrics, selected, pickable, live_run_id, under_live, ended, session_id) or slot
    return slot


def _turn(
    turn: RunState,
    run_metrics: dict[str, RunMetrics],
    selected: str | None,
    pickable: bool,
    live_run_id: str | None,
    under_live: Callable[[RunState], None] | None,
    ended: bool,
    session_id: str | None,
) -> DeltaGenerator | None:
    """One turn's question and answer; returns its answer slot when it is the live turn."""
    render.user_message(turn.question, turn.run_started.attachments if turn.run_started else ())
    with st.chat_message("assistant"):
        if turn.run_id == live_run_id:
            slot = st.empty()
            with slot.container():
                render.answer_body(turn)
            if under_live is not None:
                under_live(turn)
            return slot
        if ended and not turn.finished:
            st.warning(t("traces.replay.interrupted"))
            return None
        render.answer_body(turn)
        if turn.finished and pickable:
            turn_actions(turn, run_metrics.get(turn.run_id), selected, session_id)
        elif turn.finished:
            st.caption(render.turn_caption(turn, run_metrics.get(turn.run_id)))
    return None


def trace_panel(
    turn: RunState | None,
    number: int,
    metrics: RunMetrics | None,
    prices: PriceTable,
    *,
    live: bool,
    controls: Callable[[StepState], None] | None = None,
    replay: bool = False,
) -> None:
    """The trace column: which turn (``number`` in its session), its tools and figures, and every step.

    ``live``: the turn may still be running (its last step shows as running, and open). ``replay``: a frame
    of a recording, shown as the run stood at that point (never "running…").
    """
    st.subheader(t("trace.header"))
    if turn is None:
        st.caption(t("trace.none"))
        return
    render.trace_header(turn, number, metrics, replay=replay)
    render.steps(turn, prices, live=live, replay=replay, controls=controls)


def recent_turns(turns: Sequence[RunState], session_id: str | None) -> Sequence[RunState]:
    """The last turns of the session, with a button above them that shows earlier ones."""
    shown = st.session_state.get(_SHOWN_TURNS, {}).get(session_id, PAGE_TURNS)
    hidden = len(turns) - shown
    if hidden > 0 and st.button(t("chat.earlier", count=min(PAGE_TURNS, hidden)), key="earlier"):
        st.session_state[_SHOWN_TURNS] = {session_id: shown + PAGE_TURNS}
        st.rerun()
    return turns[-shown:]
