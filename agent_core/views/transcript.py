"""The one fold of events into turns, steps and calls: every view of a session is built on it.

The chat pane, the trace panel, replay, the metrics, the timeline and the exports all read this one
structure, built with the same code whether the events come live from a run, from the store, or from an
imported file. It is the only place that pairs a ``ToolStarted`` with its ``ToolFinished`` and finds step
boundaries. It never raises on an odd order (a ToolFinished without its start, an unfinished or resumed
run, interleaved runs): imported sessions are written by whoever sent them. The shapes it fills live in
:mod:`agent_core.views.turns` and are re-exported here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from agent_core.events import (
    AnswerRequested,
    ApprovalDecided,
    ApprovalRequested,
    CallRepeated,
    Event,
    FinalAnswer,
    ModelDelta,
    ModelFinished,
    ModelSampled,
    OutputFlagged,
    RunFinished,
    RunForked,
    RunResumed,
    RunStarted,
    StepStarted,
    ToolFinished,
    ToolStarted,
)
from agent_core.views.turns import ActionView, Request, StepView, TurnView, WorkClock


class Transcript:
    """Turns of a session, updated one event at a time (``add``) or all at once (``from_events``)."""

    def __init__(self) -> None:
        self.turns: list[TurnView] = []
        """Turns whose RunStarted is in the log, in the order they started."""
        self._by_run: dict[str, TurnView] = {}
        self.events_seen = 0

    @classmethod
    def from_events(cls, events: Iterable[Event]) -> Transcript:
        """Fold a whole event log."""
        transcript = cls()
        transcript.extend(events)
        return transcript

    def extend(self, events: Iterable[Event]) -> None:
        """Fold more events."""
        for event in events:
            self.add(event)

    def without(self, run_id: str) -> Transcript:
        """These turns but run ``run_id``'s, sharing the turn objects (a live run's own fold takes its place).

        The same as folding the events of the other runs again: a run's turn is folded from its own events only.
        """
        other = Transcript()
        other._by_run = {rid: turn for rid, turn in self._by_run.items() if rid != run_id}
        other.turns = [turn for turn in self.turns if turn.run_id != run_id]
        return other

    def turn(self, run_id: str) -> TurnView | None:
        """The turn of a run, if its RunStarted is known."""
        turn = self._by_run.get(run_id)
        return turn if turn is not None and turn.run_started is not None else None

    @property
    def runs(self) -> list[TurnView]:
        """Every run with an event in the log (its RunStarted or not), in the order they first appear."""
        return list(self._by_run.values())

    def run(self, run_id: str | None = None) -> TurnView | None:
        """Run ``run_id`` (default: the last run to appear; None if there is none); KeyError if it is not here."""
        if run_id is None:
            return next(reversed(self._by_run.values()), None)
        if run_id not in self._by_run:
            raise KeyError(f"no run {run_id!r} in these events")
        return self._by_run[run_id]

    def add(self, event: Event) -> None:
        """Fold one event into the view."""
        self.events_seen += 1
        turn = self._by_run.get(event.run_id)
        if turn is None:
            turn = self._by_run[event.run_id] = TurnView(event.run_id, "", first_ts=event.ts, last_ts=event.ts)
            turn.clock.segment_start = event.ts
        fold = _FOLDS.get(type(event))
        if fold is not None:
            fold(self, turn, event)
        turn.last_ts = event.ts

    def _on_run_started(self, turn: TurnView, event: RunStarted) -> None:
        if turn.run_started is not None:
            return  # a repeated RunStarted changes nothing
        turn.run_started, turn.question, turn.model, turn.protocol = event, event.question, event.model, event.protocol
        turn.started_at, turn.tool_count = event.ts, len(event.tools)
        self.turns.append(turn)

    def _on_run_resumed(self, turn: TurnView, event: RunResumed) -> None:
        turn.resumes.append(event)
        turn.clock.resume(event.ts, turn.last_ts)

    def _on_final_answer(self, turn: TurnView, event: FinalAnswer) -> None:
        turn.answer = turn.answer_given = event.text

    def _on_run_finished(self, turn: TurnView, event: RunFinished) -> None:
        turn.status, turn.error, turn.usage = event.status, event.error, event.usage
        turn.duration_ms, turn.run_finished = event.duration_ms, event
        turn.answer = event.final_answer if event.final_answer is not None else turn.answer
        turn.clock.finish(event.ts)

    def _on_step_started(self, turn: TurnView, event: StepStarted) -> None:
        step = turn.step(event.step)
        step.offered_tools = event.offered_tools
        for action in step.actions:  # a redone step starts afresh: its interrupted calls never finish
            turn.open_calls.pop((step.number, action.call_id), None)
            turn.latest_calls.pop((step.number, action.call_id), None)
        step.streamed, step.attempt, step.actions = "", len(step.requests), []

    def _on_model_delta(self, turn: TurnView, event: ModelDelta) -> None:
        step = turn.step(event.step)
        if event.channel == "reasoning":
            step.reasoning += event.text
        else:
            step.streamed += event.text

    def _on_model_finished(self, turn: TurnView, event: ModelFinished) -> None:
        turn.last_request = Request(event, turn.last_request)
        _finish_model(turn.step(event.step), event, turn.last_request)
        turn.calls.append(event)

    def _on_output_flagged(self, turn: TurnView, event: OutputFlagged) -> None:
        turn.step(event.step).flags.append(event)

    def _on_approval_requested(self, turn: TurnView, event: ApprovalRequested) -> None:
        action = _action(turn, turn.step(event.step), event.call_id, event.tool, event.arguments)
        action.approval, action.approval_reason = "pending", event.reason

    def _on_approval_decided(self, turn: TurnView, event: ApprovalDecided) -> None:
        action = _action(turn, turn.step(event.step), event.call_id, event.tool, {})
        action.approval = "auto" if event.by == "policy" else ("approved" if event.approved else "denied")

    def _on_call_repeated(self, turn: TurnView, event: CallRepeated) -> None:
        _action(turn, turn.step(event.step), event.call_id, event.tool, event.arguments).repeated = event

    def _on_answer_requested(self, turn: TurnView, event: AnswerRequested) -> None:
        turn.step(event.step).answer_requested = event

    def _on_tool_started(self, turn: TurnView, event: ToolStarted) -> None:
        step = turn.step(event.step)
        action = _unstarted(turn, step, event.call_id) or _new_action(turn, step, event.call_id, event.tool, {})
        action.started, action.arguments = event, action.arguments or event.arguments
        _log_call(turn, step, action)
        turn.open_calls[(step.number, event.call_id)] = action

    def _on_run_forked(self, turn: TurnView, event: RunForked) -> None:
        turn.forked = turn.forked or event

    def _on_model_sampled(self, turn: TurnView, event: ModelSampled) -> None:
        turn.step(event.step).samples.append(event)

    def _on_tool_finished(self, turn: TurnView, event: ToolFinished) -> None:
        step = turn.step(event.step)
        action = turn.open_calls.pop((step.number, event.call_id), None)
        if action is None:  # no start recorded: place the call at its end
            action = _unstarted(turn, step, event.call_id) or _new_action(turn, step, event.call_id, event.tool, {})
            _log_call(turn, step, action)
        _finish_tool(action, event)


_FOLDS: dict[type[Event], Callable[[Transcript, TurnView, Any], None]] = {
    RunStarted: Transcript._on_run_started,
    RunResumed: Transcript._on_run_resumed,
    StepStarted: Transcript._on_step_started,
    ModelDelta: Transcript._on_model_delta,
    ModelFinished: Transcript._on_model_finished,
    ToolStarted: Transcript._on_tool_started,
    ToolFinished: Transcript._on_tool_finished,
    ApprovalRequested: Transcript._on_approval_requested,
    ApprovalDecided: Transcript._on_approval_decided,
    OutputFlagged: Transcript._on_output_flagged,
    CallRepeated: Transcript._on_call_repeated,
    AnswerRequested: Transcript._on_answer_requested,
    FinalAnswer: Transcript._on_final_answer,
    RunFinished: Transcript._on_run_finished,
    RunForked: Transcript._on_run_forked,
    ModelSampled: Transcript._on_model_sampled,
}
"""How each kind of event is folded in: every event type has its entry (a test checks)."""


def _finish_model(step: StepView, event: ModelFinished, request: Request) -> None:
    step.requests.append(request)  # the step reads its reply off this call
    step.reasoning = event.reasoning or step.reasoning


def _new_action(turn: TurnView, step: StepView, call_id: str, tool: str, arguments: dict[str, Any]) -> ActionView:
    action = ActionView(call_id, tool, arguments, step=step.number)
    step.actions.append(action)
    turn.latest_calls[(step.number, call_id)] = action
    return action


def _action(turn: TurnView, step: StepView, call_id: str, tool: str, arguments: dict[str, Any]) -> ActionView:
    """The step's latest call with this id, created if needed."""
    action = turn.latest_calls.get((step.number, call_id))
    if action is None:
        return _new_action(turn, step, call_id, tool, arguments)
    if arguments and not action.arguments:
        action.arguments = arguments
    return action


def _unstarted(turn: TurnView, step: StepView, call_id: str) -> ActionView | None:
    """The step's latest call with this id if it is known only from its approval."""
    action = turn.latest_calls.get((step.number, call_id))
    return action if action is not None and action.started is None and action.finished is None else None


def _log_call(turn: TurnView, step: StepView, action: ActionView) -> None:
    step.tool_calls.append(action)
    turn.calls.append(action)


def _finish_tool(action: ActionView, event: ToolFinished) -> None:
    action.finished = event
    action.output = event.output
    action.details = event.details
    action.error = event.error
    action.duration_ms = event.duration_ms
    action.truncated = event.truncated


__all__ = ["ActionView", "Request", "StepView", "Transcript", "TurnView", "WorkClock"]
