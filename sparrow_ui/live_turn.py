"""The turn the agent is working on, on the Chat page: the calls it waits on, and its answer and trace as they grow."""

from __future__ import annotations

from functools import partial

from streamlit.delta_generator import DeltaGenerator

from agent_core.approvals import approval_key
from agent_core.events import Event
from agent_core.live import ActiveRun
from agent_core.metrics import run_metrics
from agent_core.transcript import ActionView, Transcript, TurnView
from sparrow_ui import render
from sparrow_ui.conversation import trace_panel
from sparrow_ui.runs import decide, watch
from sparrow_ui.session_view import prices


def waiting(live: ActiveRun, turn: TurnView | None) -> list[tuple[int, ActionView]]:
    """The live turn's calls that wait for an Approve / Deny click, with their step numbers."""
    if turn is None:
        return []
    return [
        (step, action)
        for step, action in turn.pending_approvals
        if live.approvals.decision(approval_key(turn.run_id, step, action.call_id)) is None
    ]


def approval_boxes(live: ActiveRun, turn: TurnView) -> None:
    """Approve / Deny for each call the live turn waits on."""
    for step, action in waiting(live, turn):
        key = approval_key(turn.run_id, step, action.call_id)
        on_decide = partial(decide, live, turn.run_id, step, action.call_id)
        render.approval_box(action.tool, action.arguments, key, on_decide)


def follow(
    live: ActiveRun, transcript: Transcript, answer: DeltaGenerator | None, trace: DeltaGenerator, *, since: int
) -> None:
    """Fold the run's events from ``since`` on into ``transcript`` and redraw its answer and trace slots.

    Returns when the run ends or asks for an approval (the page then reruns to ask).
    """

    def redraw(new: list[Event]) -> None:
        """Draw the live turn again with the new events."""
        transcript.extend(new)
        turn = transcript.turn(live.run_id)
        if turn is None:
            return
        if answer is not None:
            with answer.container():
                render.answer_body(turn)
        metrics = run_metrics([*live.base, *live.events], live.run_id, prices=prices())
        with trace.container():
            trace_panel(turn, transcript.turns.index(turn) + 1, metrics, prices(), live=True)

    watch(live, redraw, since=since)
