"""A readable view of a session: turns made of steps made of actions, folded from events.

The chat pane, the trace panel, replay and reports all render this one structure, built with the
same code whether the events come live from a run, from the store, or from a snapshot file.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from agent_core.events import (
    ApprovalDecided,
    ApprovalRequested,
    Event,
    FinalAnswer,
    ModelDelta,
    ModelFinished,
    OutputFlagged,
    RunFinished,
    RunResumed,
    RunStarted,
    StepStarted,
    ToolFinished,
    ToolStarted,
    Usage,
    full_messages,
)


@dataclass
class ActionView:
    """One tool call: what was asked and what came back."""

    call_id: str
    tool: str
    arguments: dict[str, Any]
    output: str | None = None
    """None while the call is still running."""
    details: Any = None
    error: str | None = None
    duration_ms: float | None = None
    truncated: bool = False
    approval: str | None = None
    """None when no approval was needed; else ``pending``, ``approved``, ``denied`` or ``auto``."""

    @property
    def running(self) -> bool:
        """True until the call's ToolFinished arrives."""
        return self.output is None


@dataclass
class StepView:
    """One think → act → observe step."""

    number: int
    offered_tools: tuple[str, ...] = ()
    streamed: str = ""
    """Text streamed so far (live runs); replaced by ``text`` once the model call ends."""
    reasoning: str = ""
    text: str | None = None
    """The raw model output, once the model call finished."""
    thought: str = ""
    final_answer: str | None = None
    format_error: str | None = None
    model_error: str | None = None
    usage: Usage | None = None
    latency_ms: float | None = None
    ttft_ms: float | None = None
    messages: tuple[dict[str, Any], ...] = ()
    """The complete request of the step's model call."""
    actions: list[ActionView] = field(default_factory=list)
    flags: list[OutputFlagged] = field(default_factory=list)
    """What the output check masked in this step (secrets, by default)."""

    @property
    def has_error(self) -> bool:
        """True if the model call, the format or any tool call failed."""
        return bool(self.model_error or self.format_error or any(a.error for a in self.actions))

    @property
    def thinking(self) -> bool:
        """True while the model is still writing this step."""
        return self.text is None and self.model_error is None


@dataclass
class TurnView:
    """One question and everything the agent did to answer it."""

    run_id: str
    question: str
    model: str = ""
    protocol: str = ""
    started_at: float = 0.0
    tool_count: int = 0
    """How many tools the run had; steps may have been offered fewer (tool retrieval)."""
    steps: list[StepView] = field(default_factory=list)
    resumed_at: list[int] = field(default_factory=list)
    """Step numbers at which this run was resumed after an interruption."""
    answer: str | None = None
    status: str | None = None
    """None while the run is in progress (or was interrupted)."""
    error: str | None = None
    usage: Usage | None = None
    duration_ms: float | None = None

    @property
    def finished(self) -> bool:
        """True once the run's RunFinished arrived."""
        return self.status is not None

    def step(self, number: int) -> StepView:
        """The step with this number, created if needed."""
        if not self.steps or self.steps[-1].number != number:
            existing = next((s for s in self.steps if s.number == number), None)
            if existing is not None:
                return existing
            self.steps.append(StepView(number))
        return self.steps[-1]

    @property
    def pending_approvals(self) -> list[tuple[int, ActionView]]:
        """(step number, call) of every call waiting for a person's decision."""
        if self.finished:
            return []
        return [(s.number, a) for s in self.steps for a in s.actions if a.approval == "pending"]

    @property
    def live_text(self) -> str:
        """The answer so far: the final answer, or what the model is streaming right now."""
        if self.answer is not None:
            return self.answer
        return self.steps[-1].streamed if self.steps and self.steps[-1].thinking else ""


class Transcript:
    """Turns of a session, updated one event at a time (``add``) or all at once (``from_events``)."""

    def __init__(self) -> None:
        self.turns: list[TurnView] = []
        self._by_run: dict[str, TurnView] = {}
        self._requests: dict[str, tuple[dict[str, Any], ...]] = {}
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

    def turn(self, run_id: str) -> TurnView | None:
        """The turn of a run, if known."""
        return self._by_run.get(run_id)

    def add(self, event: Event) -> None:
        """Fold one event into the view."""
        self.events_seen += 1
        if isinstance(event, RunStarted):
            turn = TurnView(event.run_id, event.question, event.model, event.protocol, event.ts, len(event.tools))
            self.turns.append(turn)
            self._by_run[event.run_id] = turn
            return
        turn = self._by_run.get(event.run_id)
        if turn is None:
            return  # events of a run whose start is not in this log
        if isinstance(event, RunResumed):
            turn.resumed_at.append(event.from_step)
        elif isinstance(event, StepStarted):
            step = turn.step(event.step)
            step.offered_tools = event.offered_tools
            step.streamed, step.text, step.actions = "", None, []  # a redone step starts afresh
        elif isinstance(event, ModelDelta):
            step = turn.step(event.step)
            if event.channel == "reasoning":
                step.reasoning += event.text
            else:
                step.streamed += event.text
        elif isinstance(event, ModelFinished):
            _finish_model(turn.step(event.step), event, full_messages(event, self._requests))
        elif isinstance(event, ApprovalRequested):
            _action(turn.step(event.step), event.call_id, event.tool, event.arguments).approval = "pending"
        elif isinstance(event, ApprovalDecided):
            action = _action(turn.step(event.step), event.call_id, event.tool, {})
            action.approval = "auto" if event.by == "policy" else ("approved" if event.approved else "denied")
        elif isinstance(event, ToolStarted):
            _action(turn.step(event.step), event.call_id, event.tool, event.arguments)
        elif isinstance(event, OutputFlagged):
            turn.step(event.step).flags.append(event)
        elif isinstance(event, ToolFinished):
            _finish_tool(turn.step(event.step), event)
        elif isinstance(event, FinalAnswer):
            turn.answer = event.text
        elif isinstance(event, RunFinished):
            turn.status, turn.error, turn.usage = event.status, event.error, event.usage
            turn.duration_ms = event.duration_ms
            turn.answer = event.final_answer if event.final_answer is not None else turn.answer


def _finish_model(step: StepView, event: ModelFinished, messages: tuple[dict[str, Any], ...]) -> None:
    step.text = event.text
    step.reasoning = event.reasoning or step.reasoning
    step.thought = event.thought
    step.final_answer = event.final_answer
    step.format_error = event.format_error
    step.model_error = event.error
    step.usage = event.usage
    step.latency_ms = event.latency_ms
    step.ttft_ms = event.ttft_ms
    step.messages = messages


def _action(step: StepView, call_id: str, tool: str, arguments: dict[str, Any]) -> ActionView:
    """The step's call with this id, created if needed."""
    action = next((a for a in step.actions if a.call_id == call_id), None)
    if action is None:
        action = ActionView(call_id, tool, arguments)
        step.actions.append(action)
    elif arguments and not action.arguments:
        action.arguments = arguments
    return action


def _finish_tool(step: StepView, event: ToolFinished) -> None:
    action = _action(step, event.call_id, event.tool, {})
    action.output = event.output
    action.details = event.details
    action.error = event.error
    action.duration_ms = event.duration_ms
    action.truncated = event.truncated
