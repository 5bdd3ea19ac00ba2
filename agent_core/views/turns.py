"""Turns made of steps made of calls: the shapes the transcript folds a session's events into.

:class:`~agent_core.views.transcript.Transcript` fills them; the chat pane, the trace panel, replay, the metrics,
the timeline and the exports read them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agent_core.events import (
    AnswerRequested,
    CallRepeated,
    ModelFinished,
    ModelSampled,
    OutputFlagged,
    RunFinished,
    RunForked,
    RunResumed,
    RunStarted,
    ToolFinished,
    ToolStarted,
    Usage,
)
from agent_core.models.pricing import PriceTable


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
    approval_reason: str | None = None
    """Why the call asked when outside content steers it (see ``taint``)."""
    step: int = 0
    """The step that made the call."""
    started: ToolStarted | None = None
    """The call's start; None if only its end (or only its approval) was recorded."""
    finished: ToolFinished | None = None
    """The call's end; None while it runs, or if it never finished (an interrupted run)."""
    repeated: CallRepeated | None = None
    """Set when the call repeats an earlier one of the run (then, by default, it was not run again)."""

    @property
    def running(self) -> bool:
        """True until the call's ToolFinished arrives."""
        return self.output is None

    @property
    def ran(self) -> bool:
        """False for a repeat answered from the record (``repeat_policy`` ``redirect``): it is no call of the tool."""
        return self.repeated is None or self.repeated.ran


@dataclass(eq=False)
class Request:
    """A model call and its request as the event stores it (what changed since the run's call before), linked to that.

    ``messages()`` gives the complete request, as ``events.with_full_messages`` would.
    """

    event: ModelFinished
    before: Request | None
    _full: tuple[dict[str, Any], ...] | None = None

    def messages(self) -> tuple[dict[str, Any], ...]:
        """The complete request, rebuilt from the chain once and then kept."""
        chain: list[Request] = []
        node: Request | None = self
        while node is not None and node._full is None:
            chain.append(node)
            node = node.before
        full = node._full if node is not None and node._full is not None else ()
        for link in reversed(chain):
            full = link._full = full[: link.event.messages_kept] + link.event.messages
        return full


@dataclass
class StepView:
    """One think → act → observe step: what it asked the model and the tools, and what came back.

    The one record of a step: its text, thought, answer and errors are read off its latest model call (``call``),
    its tokens, times, tools and cost off all its calls; the metrics, the timeline and the exports read them here.
    """

    number: int
    """1-based step number within the run."""
    turn: TurnView = field(repr=False, compare=False)
    """The run the step belongs to (its id, its model, the endpoint its prices are looked up at)."""
    offered_tools: tuple[str, ...] = ()
    streamed: str = ""
    """Text streamed so far (live runs); replaced by ``text`` once the model call ends."""
    reasoning: str = ""
    """Reasoning streamed so far, or the latest model call's when it carries some."""
    attempt: int = 0
    """Where the step's current attempt starts in ``requests`` (a step redone after a resume starts afresh)."""
    actions: list[ActionView] = field(default_factory=list)
    """The tool calls of the step's latest attempt (a step redone after a resume starts afresh)."""
    flags: list[OutputFlagged] = field(default_factory=list)
    """What the output check masked in this step (secrets, by default)."""
    answer_requested: AnswerRequested | None = None
    """Set when this step's repeats narrowed the next request to a final answer."""
    requests: list[Request] = field(default_factory=list)
    """Every model call of the step (a call made before an interruption included) with its request."""
    tool_calls: list[ActionView] = field(default_factory=list)
    """Every tool call of the step, in start order, calls made before an interruption included."""
    samples: list[ModelSampled] = field(default_factory=list)
    """Re-samples of this step (the model asked again with the step's messages), oldest first."""

    @property
    def call(self) -> ModelFinished | None:
        """The step's latest model call (of this attempt; while a redone step waits for its reply, the one before)."""
        return self.requests[-1].event if self.requests else None

    @property
    def text(self) -> str | None:
        """The raw model output, once the current attempt's model call finished."""
        return self.requests[-1].event.text if len(self.requests) > self.attempt else None

    @property
    def thought(self) -> str:
        """The reply's thought."""
        return self.call.thought if self.call else ""

    @property
    def final_answer(self) -> str | None:
        """The reply's final answer, if it gave one."""
        return self.call.final_answer if self.call else None

    @property
    def format_error(self) -> str | None:
        """Why the reply could not be understood (the model was asked to retry)."""
        return self.call.format_error if self.call else None

    @property
    def model_error(self) -> str | None:
        """Why the model call itself failed."""
        return self.call.error if self.call else None

    @property
    def run_id(self) -> str:
        """The id of the step's run."""
        return self.turn.run_id

    @property
    def model(self) -> str:
        """Model that answered (the run's model when the event does not say)."""
        return (self.call.model if self.call else "") or self.turn.model

    @property
    def usage(self) -> Usage:
        """Tokens of the step's model call(s); ``usage.estimated`` marks Sparrow's estimate."""
        if len(self.requests) == 1:  # the usual step: its one call's tokens, without making a sum
            return self.requests[0].event.usage
        return sum((r.event.usage for r in self.requests), Usage())

    @property
    def latency_ms(self) -> float:
        """Wall-clock time of the model call(s)."""
        return sum(r.event.latency_ms for r in self.requests)

    @property
    def ttft_ms(self) -> float | None:
        """Time to first streamed token (the quickest call's); None when the reply was not streamed."""
        return min((r.event.ttft_ms for r in self.requests if r.event.ttft_ms is not None), default=None)

    @property
    def tool_results(self) -> list[ToolFinished]:
        """The ends of the step's tool calls that ran, in call order (a repeat answered from the record did not)."""
        return [a.finished for a in self.tool_calls if a.finished is not None and a.ran]

    @property
    def tools(self) -> tuple[str, ...]:
        """Names of the tools called in this step, in call order."""
        return tuple(done.tool for done in self.tool_results)

    @property
    def tool_errors(self) -> int:
        """How many of those calls failed."""
        return sum(done.error is not None for done in self.tool_results)

    @property
    def tool_ms(self) -> float:
        """Sum of the tool calls' durations (they may have run in parallel)."""
        return sum(done.duration_ms for done in self.tool_results)

    def cost(self, prices: PriceTable) -> float | None:
        """USD of the model call(s), each at the price in force when it was made; None when one is unknown.

        ``prices``: any table; the step is priced at the endpoint its run recorded (``PriceTable.for_run``).
        """
        table, total = prices.for_run(self.turn.run_started), 0.0
        for m in self.model_calls:
            cost = table.cost(m.usage, m.model or self.turn.model, m.ts)
            if cost is None:
                return None
            total += cost
        return total

    @property
    def model_calls(self) -> list[ModelFinished]:
        """Every model call of the step, a call made before an interruption included."""
        return [r.event for r in self.requests]

    @property
    def messages(self) -> tuple[dict[str, Any], ...]:
        """The complete request of the step's latest model call (built when first asked for)."""
        return self.requests[-1].messages() if self.requests else ()

    @property
    def has_error(self) -> bool:
        """True if the model call, the format or any tool call failed."""
        return bool(self.model_error or self.format_error or any(a.error for a in self.actions))

    @property
    def thinking(self) -> bool:
        """True while the model is still writing this step."""
        return self.text is None and self.model_error is None


@dataclass
class WorkClock:
    """Working time of a run: the time its events span, segment by segment (start or resume → last event).

    The one definition of a run's duration, shared by every view (the Traces figures, the waterfall, the
    session overview, Compare, the live header): the waterfall is drawn on the same event times, so its end is
    the duration. (``RunFinished.duration_ms``, the loop's own measure, also counts the time before the run's
    first event, which a run built early and started late, a fork or a rerun, makes long.)
    """

    segment_start: float = 0.0
    """When the current segment began: the run's first event, or its latest resume."""
    closed_ms: float = 0.0
    """Segments closed by a resume."""
    total_ms: float | None = None
    """Set by the run's first RunFinished: closed segments plus the last one, to that event."""

    def resume(self, at: float, previous_ts: float) -> None:
        """The run resumed at ``at``; its segment before ended at ``previous_ts`` (its event before the resume)."""
        if self.total_ms is None:
            self.closed_ms += (previous_ts - self.segment_start) * 1000
            self.segment_start = at

    def finish(self, at: float) -> None:
        """The run finished at ``at`` (its RunFinished's time), which ends its last segment."""
        if self.total_ms is None:
            self.total_ms = self.closed_ms + max(0.0, at - self.segment_start) * 1000

    def worked_ms(self, last_ts: float) -> float:
        """The working time so far, ``last_ts`` being the time of the run's last event."""
        if self.total_ms is not None:
            return self.total_ms
        return self.closed_ms + (last_ts - self.segment_start) * 1000


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
    resumes: list[RunResumed] = field(default_factory=list)
    """Each resume of this run after an interruption, in order."""
    answer: str | None = None
    status: str | None = None
    """None while the run is in progress (or was interrupted)."""
    error: str | None = None
    usage: Usage | None = None
    duration_ms: float | None = None
    run_started: RunStarted | None = None
    """The run's first RunStarted; None when the log lacks it."""
    run_finished: RunFinished | None = None
    """The run's last RunFinished; None while it runs (or if it was interrupted)."""
    answer_given: str | None = None
    """The text of the run's last FinalAnswer event."""
    calls: list[ModelFinished | ActionView] = field(default_factory=list)
    """Every model call and tool call of the run, in the order they started."""
    first_ts: float = 0.0
    """Unix time of the run's first event."""
    last_ts: float = 0.0
    """Unix time of the run's last event."""
    clock: WorkClock = field(default_factory=WorkClock)
    """The run's working time, paused between an interruption and its resume."""
    forked: RunForked | None = None
    """Where this run was forked from, when it is a fork (its steps before ``forked.at_step`` are copies)."""
    _by_number: dict[int, StepView] = field(default_factory=dict, repr=False, compare=False)
    """``steps`` by number, so that a long run finds a step in O(1)."""
    open_calls: dict[tuple[int, str], ActionView] = field(default_factory=dict, repr=False, compare=False)
    """Calls started and not finished yet, by (step, call id)."""
    latest_calls: dict[tuple[int, str], ActionView] = field(default_factory=dict, repr=False, compare=False)
    """The latest call of each (step, call id) in the step's current attempt: where its approval and start meet."""
    last_request: Request | None = field(default=None, repr=False, compare=False)
    """The request of the run's latest model call (the next one's stores only what changed since)."""

    @property
    def resumed_at(self) -> list[int]:
        """Step numbers at which this run was resumed after an interruption."""
        return [resume.from_step for resume in self.resumes]

    @property
    def finished(self) -> bool:
        """True once the run's RunFinished arrived."""
        return self.status is not None

    @property
    def numbered_steps(self) -> list[StepView]:
        """``steps`` by number (an imported log may mention a later step first)."""
        return sorted(self.steps, key=lambda s: s.number)

    def step(self, number: int) -> StepView:
        """The step with this number, created if needed."""
        found = self._by_number.get(number)
        if found is None:
            found = self._by_number[number] = StepView(number, self)
            self.steps.append(found)
        return found

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

    @property
    def worked_ms(self) -> float:
        """Time the agent worked on the run (a pause before a resume is not counted)."""
        return self.clock.worked_ms(self.last_ts)
