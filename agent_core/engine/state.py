"""The run's state: a run's events folded once, into the RunState that the loop, resumes, forks, scorers and views read.

``RunState.add`` folds one event (``RunState.fold`` a recorded run): the run's steps (``StepState``) and tool calls
(``CallState``) as every view shows them, and what the engine needs to go on: the totals (tokens, tool calls that
ran, steps), the calls made, by tool and canonical arguments (repeats, a fork's reuse), the outside content read
(``Taint``), the repeats so far and the narrowing they asked for, and, in a state with a ``ContextWindow``, what the
model is sent of the run: each step's messages, derived from the protocol once the step is complete, the recent
steps in full and older ones condensed in batches (a step's one-line digest is made when it is condensed).

The loop applies every event it yields to its RunState; a resumed run, a fork's branch and a re-sample fold the
recorded events and go on from there: a run's state is never rebuilt any other way. Each event costs the work it
brings (nothing walks the run again). The fold never raises on an odd order (a ToolFinished without its start, an
unfinished or resumed run, a step redone after a resume): imported sessions are written by whoever sent them.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from agent_core.engine.approvals import asks_first, sends_out
from agent_core.engine.protocols.protocol import AgentProtocol, Narrowing
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
    Usage,
)
from agent_core.formatting import clip, plural
from agent_core.models.chat import Message, estimate_messages
from agent_core.models.pricing import PriceTable
from agent_core.tools.runner import CallRequest
from agent_core.tools.tool import Tool, ToolSet


def canonical_arguments(arguments: Any) -> str:
    """Arguments as canonical JSON: sorted keys, compact separators, non-ASCII kept as is.

    A call is its tool's name and these, so ``{"a": 1, "b": 2}`` and ``{"b":2,"a":1}`` make the same call.
    """
    return json.dumps(arguments, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)


def call_key(tool: str, arguments: Any) -> tuple[str, str]:
    """The identity of a call: its tool's name and its canonical arguments."""
    return tool, canonical_arguments(arguments)


@dataclass
class CallState:
    """One tool call: what was asked and what came back."""

    call_id: str
    """The call's id within its step (matches its ToolStarted and ToolFinished events)."""
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
    """Why the call asked when outside content steers it (see ``Taint``)."""
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
class StepState:
    """One think → act → observe step: what it asked the model and the tools, what came back, and its context.

    The one record of a step: its text, thought, answer and errors are read off its latest model call (``call``),
    its tokens, times, tools and cost off all its calls; the metrics, the timeline and the exports read them here.
    Once the step is complete (its reply understood or not, every call it asked for answered) a state with a
    context window derives what the model is sent of it (``context``), once, from the protocol.
    """

    number: int
    """1-based step number within the run."""
    run: RunState = field(repr=False, compare=False)
    """The run the step belongs to (its id, its model, the endpoint its prices are looked up at)."""
    offered_tools: tuple[str, ...] = ()
    streamed: str = ""
    """Text streamed so far (live runs); replaced by ``text`` once the model call ends."""
    reasoning: str = ""
    """Reasoning streamed so far, or the latest model call's when it carries some."""
    attempt: int = 0
    """Where the step's current attempt starts in ``requests`` (a step redone after a resume starts afresh)."""
    actions: list[CallState] = field(default_factory=list)
    """The tool calls of the step's latest attempt (a step redone after a resume starts afresh)."""
    flags: list[OutputFlagged] = field(default_factory=list)
    """What the output check masked in this step (secrets, by default)."""
    answer_requested: AnswerRequested | None = None
    """Set when this step's repeats narrowed the next request to a final answer."""
    requests: list[Request] = field(default_factory=list)
    """Every model call of the step (a call made before an interruption included) with its request."""
    tool_calls: list[CallState] = field(default_factory=list)
    """Every tool call of the step, in start order, calls made before an interruption included."""
    samples: list[ModelSampled] = field(default_factory=list)
    """Re-samples of this step (the model asked again with the step's messages), oldest first."""
    complete: bool = False
    """True once the step's reply was understood or not and every call it asked for was answered."""
    context: list[Message] | None = None
    """The step's messages in the model's context (its reply, then the observations or the correction, then the
    answer request after repeated calls); set when a state with a context window sees the step complete."""
    tokens: int = 0
    """Estimated tokens of ``context``."""

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
        return self.run.run_id

    @property
    def model(self) -> str:
        """Model that answered (the run's model when the event does not say)."""
        return (self.call.model if self.call else "") or self.run.model

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
        table, total = prices.for_run(self.run.run_started), 0.0
        for m in self.model_calls:
            cost = table.cost(m.usage, m.model or self.run.model, m.ts)
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

    def results(self) -> list[ToolFinished]:
        """What came back for the calls of this attempt's reply, in the reply's call order (restated repeats too)."""
        call = self.call
        if call is None:
            return []
        done = {a.call_id: a.finished for a in self.actions if a.finished is not None}
        return [done[c["id"]] for c in call.tool_calls if c["id"] in done]

    def seal(self, protocol: AgentProtocol, tools: Sequence[Tool]) -> None:
        """Derive the complete step's context messages (``tools``: named in a correction) and their tokens."""
        call = self.call
        assert call is not None
        assistant = protocol.assistant_message(call.text, call.tool_calls)
        if call.format_error:
            self.context = [assistant, protocol.correction_message(call.format_error, tools)]
        else:
            observed = [(r.call_id, r.tool, r.output) for r in self.results()]
            self.context = [assistant, *protocol.observation_messages(observed)]
        self.tokens = estimate_messages(self.context)

    @property
    def digest(self) -> str:
        """One line about the step, for the condensed note once it leaves the context window."""
        call = self.call
        if call is None or call.format_error:
            return step_digest(self.number, (), call.format_error if call else "no reply")
        arguments = {c["id"]: c["arguments"] for c in call.tool_calls}
        return step_digest(self.number, [(r.tool, arguments.get(r.call_id, ""), r.output) for r in self.results()])


def step_digest(step: int, calls: Sequence[tuple[str, str, str]], problem: str | None = None) -> str:
    """One line about a step: ``step 3: calculator({...}) → 42``."""
    if problem:
        return f"step {step}: reply not understood ({clip(problem, 120, one_line=True)})"
    parts = [
        f"{name}({clip(args, 80, one_line=True)}) → {clip(output, 120, one_line=True)}" for name, args, output in calls
    ]
    return f"step {step}: " + "; ".join(parts)


class ContextWindow:
    """What the model is sent of the run's steps: the last ``keep_steps`` (up to twice that) in full, older ones as
    one-line digests in a condensed note."""

    def __init__(
        self, protocol: AgentProtocol, tools: Sequence[Tool] = (), keep_steps: int = 6, max_digests: int = 30
    ) -> None:
        self.protocol, self.tools, self.keep_steps = protocol, tuple(tools), keep_steps
        """How steps become messages (the protocol), the tools a correction names, and how many are kept in full."""
        self.recent: deque[StepState] = deque()
        self.digests: deque[str] = deque(maxlen=max_digests)
        self.condensed = 0
        """Steps condensed so far (the note shows the last ``max_digests`` of them)."""
        self._recent_tokens = 0
        self._note: tuple[Message, int] | None = None
        """The condensed note and its tokens, made once per batch condensed."""

    def add(self, step: StepState) -> None:
        """Take in a complete step; the oldest full steps turn into digests when there are too many."""
        step.seal(self.protocol, self.tools)
        self.recent.append(step)
        self._recent_tokens += step.tokens
        if len(self.recent) <= 2 * self.keep_steps:
            return
        # Condense in batches: the start of the context then stays the same for several steps, which keeps
        # the log small (only new messages are stored) and suits providers' prompt caching.
        while len(self.recent) > self.keep_steps:
            old = self.recent.popleft()
            self._recent_tokens -= old.tokens
            self.digests.append(old.digest)
            self.condensed += 1
            self._note = None

    def extend(self, step: StepState, message: Message) -> None:
        """Add ``message`` to a step already in the window (the answer request after its repeated calls)."""
        if step.context is None or not any(kept is step for kept in reversed(self.recent)):
            return  # condensed already: its digest stands for it
        step.context.append(message)
        tokens = estimate_messages([message])
        step.tokens += tokens
        self._recent_tokens += tokens

    def messages(self) -> list[Message]:
        """Messages for the context: a condensed note for old steps, then recent steps in full."""
        out: list[Message] = [note] if (note := self.note()) else []
        for step in self.recent:
            out.extend(step.context or ())
        return out

    def note(self) -> Message | None:
        """The condensed note about old steps, or None while every step is kept in full."""
        if not self.condensed:
            return None
        if self._note is None:
            hidden = self.condensed - len(self.digests)
            lines = ([f"({hidden} earlier steps not shown)"] if hidden else []) + list(self.digests)
            note: Message = {"role": "user", "content": "Earlier steps of this task, condensed (most recent last):\n"}
            note["content"] += "\n".join(lines)
            self._note = (note, estimate_messages([note]))
        return self._note[0]

    def estimate_tokens(self) -> int:
        """Estimated prompt tokens of ``messages()``, without re-reading every message."""
        return self._recent_tokens + (self._note[1] if self.note() and self._note else 0)


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
class Totals:
    """What a run has spent so far: what its RunFinished reports."""

    usage: Usage = field(default_factory=Usage)
    """Tokens of every model call (a call cut off mid-reply included: what it wrote was generated)."""
    tool_calls: int = 0
    """Tool calls that ran (a denied call and a fork's reused result included; a repeat answered from the record
    is no call of the tool)."""
    steps: int = 0
    """The number of the latest step started."""


@dataclass
class Repeats:
    """The run's repeated calls so far (its CallRepeated events)."""

    count: int = 0
    tools: tuple[str, ...] = ()
    """The repeated tools, in the order first repeated."""
    keys: set[str] = field(default_factory=set)
    """The repeated calls, as ``tool(canonical arguments)``."""
    last: CallRepeated | None = None


@dataclass
class Taint:
    """The outside content one run has read: (step, source) pairs, in order, and the hosts it read from."""

    reads: list[tuple[int, str]] = field(default_factory=list)
    hosts: set[str] = field(default_factory=set)

    def add(self, step: int, source: str) -> None:
        """Note that ``step`` read content from ``source``."""
        self.reads.append((step, source))
        host = urlsplit(source).hostname if "://" in source else None
        if host:
            self.hosts.add(host)

    def summary(self) -> str | None:
        """What the run has read, for a memory's mark and an approval's reason (None when nothing)."""
        if not self.reads:
            return None
        first_step, first = self.reads[0]
        more = len(self.reads) - 1
        others = f" (and {more} more outside source{'s' * (more > 1)})" if more else ""
        return f"step {first_step} read {first}{others}"

    def reason(self, tool: Tool, arguments: Mapping[str, Any]) -> str | None:
        """Why a call to ``tool`` must ask in this run: it sends or stores data after outside content was read."""
        summary = self.summary()
        if summary is None:
            return None
        action = sends_out(tool, arguments, self.hosts)
        return None if action is None else f"{summary}; this call {action}"


@dataclass
class RunState:
    """One question and everything the agent did to answer it, folded from the run's events (``add``, ``fold``)."""

    run_id: str
    question: str = ""
    model: str = ""
    protocol: str = ""
    started_at: float = 0.0
    tool_count: int = 0
    """How many tools the run had; steps may have been offered fewer (tool retrieval)."""
    steps: list[StepState] = field(default_factory=list)
    resumes: list[RunResumed] = field(default_factory=list)
    """Each resume of this run after an interruption, in order."""
    answer: str | None = None
    status: str | None = None
    """None while the run is in progress (or was interrupted)."""
    error: str | None = None
    usage: Usage | None = None
    """The usage its RunFinished reported (None before it); the running sum is ``totals.usage``."""
    duration_ms: float | None = None
    run_started: RunStarted | None = None
    """The run's first RunStarted; None when the log lacks it."""
    run_finished: RunFinished | None = None
    """The run's last RunFinished; None while it runs (or if it was interrupted)."""
    answer_given: str | None = None
    """The text of the run's last FinalAnswer event."""
    calls: list[ModelFinished | CallState] = field(default_factory=list)
    """Every model call and tool call of the run, in the order they started."""
    first_ts: float = 0.0
    """Unix time of the run's first event."""
    last_ts: float = 0.0
    """Unix time of the run's last event."""
    clock: WorkClock = field(default_factory=WorkClock)
    """The run's working time, paused between an interruption and its resume."""
    forked: RunForked | None = None
    """Where this run was forked from, when it is a fork (its steps before ``forked.at_step`` are copies)."""
    totals: Totals = field(default_factory=Totals)
    """Tokens, tool calls and steps so far (what the loop's RunFinished reports)."""
    repeats: Repeats = field(default_factory=Repeats)
    """The repeated calls so far."""
    taint: Taint = field(default_factory=Taint)
    """The outside content the run has read."""
    narrowing: Narrowing | None = None
    """What the next request is narrowed around after repeated calls (None: it is not)."""
    last_complete: int = 0
    """The number of the run's last complete step (a resumed run goes on after it)."""
    format_failures: int = 0
    """Replies in a row that could not be understood."""
    events_seen: int = 0
    """Events folded so far."""
    window: ContextWindow | None = field(default=None, repr=False, compare=False)
    """What the model is sent of the steps; None in a state that only shows the run (a view)."""
    _by_number: dict[int, StepState] = field(default_factory=dict, repr=False, compare=False)
    """``steps`` by number, so that a long run finds a step in O(1)."""
    open_calls: dict[tuple[int, str], CallState] = field(default_factory=dict, repr=False, compare=False)
    """Calls started and not finished yet, by (step, call id)."""
    latest_calls: dict[tuple[int, str], CallState] = field(default_factory=dict, repr=False, compare=False)
    """The latest call of each (step, call id) in the step's current attempt: where its approval and start meet."""
    started_calls: list[CallState] = field(default_factory=list, repr=False, compare=False)
    """Every started call, in start order."""
    by_key: dict[tuple[str, str], list[CallState]] = field(default_factory=dict, repr=False, compare=False)
    """The started calls by (tool, canonical arguments), earliest first, indexed when first looked up (``find``):
    a fold that never looks a call up (a view) never pays for the canonical JSON."""
    _indexed: int = field(default=0, repr=False, compare=False)
    last_request: Request | None = field(default=None, repr=False, compare=False)
    """The request of the run's latest model call (the next one's stores only what changed since)."""

    @classmethod
    def fold(cls, events: Iterable[Event], *, window: ContextWindow | None = None) -> RunState:
        """The state of a recorded run: its events folded in order (events of another run are left out)."""
        state: RunState | None = None
        for event in events:
            if state is None:
                state = cls(event.run_id, window=window)
            if event.run_id == state.run_id:
                state.add(event)
        return state if state is not None else cls("", window=window)

    def add(self, event: Event) -> None:
        """Fold one event of the run."""
        if not self.events_seen:
            self.first_ts = self.last_ts = self.clock.segment_start = event.ts
        self.events_seen += 1
        fold = _FOLDS.get(type(event))
        if fold is not None:
            fold(self, event)
        self.last_ts = event.ts

    def step(self, number: int) -> StepState:
        """The step with this number, created if needed."""
        found = self._by_number.get(number)
        if found is None:
            found = self._by_number[number] = StepState(number, self)
            self.steps.append(found)
        return found

    def find(self, tool: str, arguments: Any, *, finished_only: bool = True) -> CallState | None:
        """The run's earliest call with this tool and these arguments (one that finished, by default)."""
        for call in self._index().get(call_key(tool, arguments), ()):
            if call.finished is not None or not finished_only:
                return call
        return None

    def count(self, tool: str, arguments: Any) -> int:
        """How many times the run started exactly this call."""
        return len(self._index().get(call_key(tool, arguments), ()))

    def _index(self) -> dict[tuple[str, str], list[CallState]]:
        """``by_key``, with the calls started since the last look-up added."""
        for call in self.started_calls[self._indexed :]:
            started = call.started
            assert started is not None
            self.by_key.setdefault(call_key(started.tool, started.arguments), []).append(call)
        self._indexed = len(self.started_calls)
        return self.by_key

    def narrowing_after(self, step: StepState) -> Narrowing | None:
        """The narrowing after ``step``'s repeats: around every tool repeated so far, failed when the last repeated
        call had failed (then the tools offered at the step that were not repeated are still open)."""
        last = self.repeats.last
        earlier = self.find(last.tool, last.arguments) if last is not None else None
        if earlier is None:
            return None
        failed = earlier.error is not None
        others = tuple(name for name in step.offered_tools if name not in self.repeats.tools)
        return Narrowing(self.repeats.tools, failed=failed, other_tools=others)

    @property
    def resumed_at(self) -> list[int]:
        """Step numbers at which this run was resumed after an interruption."""
        return [resume.from_step for resume in self.resumes]

    @property
    def finished(self) -> bool:
        """True once the run's RunFinished arrived."""
        return self.status is not None

    @property
    def numbered_steps(self) -> list[StepState]:
        """``steps`` by number (an imported log may mention a later step first)."""
        return sorted(self.steps, key=lambda s: s.number)

    @property
    def pending_approvals(self) -> list[tuple[int, CallState]]:
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

    @property
    def last_thought(self) -> str:
        """The thought of the run's latest reply ("" before the first)."""
        return self.last_request.event.thought if self.last_request is not None else ""

    def _on_run_started(self, event: RunStarted) -> None:
        if self.run_started is not None:
            return  # a repeated RunStarted changes nothing
        self.run_started, self.question, self.model, self.protocol = event, event.question, event.model, event.protocol
        self.started_at, self.tool_count = event.ts, len(event.tools)

    def _on_run_resumed(self, event: RunResumed) -> None:
        self.resumes.append(event)
        self.clock.resume(event.ts, self.last_ts)

    def _on_final_answer(self, event: FinalAnswer) -> None:
        self.answer = self.answer_given = event.text

    def _on_run_finished(self, event: RunFinished) -> None:
        self.status, self.error, self.usage = event.status, event.error, event.usage
        self.duration_ms, self.run_finished = event.duration_ms, event
        self.answer = event.final_answer if event.final_answer is not None else self.answer
        self.clock.finish(event.ts)

    def _on_step_started(self, event: StepStarted) -> None:
        step = self.step(event.step)
        step.offered_tools = event.offered_tools
        for action in step.actions:  # a redone step starts afresh: its interrupted calls never finish
            self.open_calls.pop((step.number, action.call_id), None)
            self.latest_calls.pop((step.number, action.call_id), None)
        step.streamed, step.attempt, step.actions = "", len(step.requests), []
        self.totals.steps = event.step

    def _on_model_delta(self, event: ModelDelta) -> None:
        step = self.step(event.step)
        if event.channel == "reasoning":
            step.reasoning += event.text
        else:
            step.streamed += event.text

    def _on_model_finished(self, event: ModelFinished) -> None:
        self.last_request = request = Request(event, self.last_request)
        step = self.step(event.step)
        step.requests.append(request)  # the step reads its reply off this call
        step.reasoning = event.reasoning or step.reasoning
        self.calls.append(event)
        self.totals.usage += event.usage
        self._complete_if_done(step)

    def _on_output_flagged(self, event: OutputFlagged) -> None:
        self.step(event.step).flags.append(event)

    def _on_approval_requested(self, event: ApprovalRequested) -> None:
        action = self._action(self.step(event.step), event.call_id, event.tool, event.arguments)
        action.approval, action.approval_reason = "pending", event.reason

    def _on_approval_decided(self, event: ApprovalDecided) -> None:
        action = self._action(self.step(event.step), event.call_id, event.tool, {})
        action.approval = "auto" if event.by == "policy" else ("approved" if event.approved else "denied")

    def _on_call_repeated(self, event: CallRepeated) -> None:
        self._action(self.step(event.step), event.call_id, event.tool, event.arguments).repeated = event
        repeats = self.repeats
        repeats.count, repeats.last = repeats.count + 1, event
        repeats.keys.add(f"{event.tool}({canonical_arguments(event.arguments)})")
        if event.tool not in repeats.tools:
            repeats.tools = (*repeats.tools, event.tool)

    def _on_answer_requested(self, event: AnswerRequested) -> None:
        step = self.step(event.step)
        step.answer_requested = event
        narrowing = self.narrowing = self.narrowing_after(step)
        last = self.repeats.last
        if narrowing is not None and last is not None and self.window is not None:
            message = answer_request(last, self.find(last.tool, last.arguments), event.repeats)
            self.window.extend(step, self.window.protocol.answer_request(message, narrowing))

    def _on_tool_started(self, event: ToolStarted) -> None:
        step = self.step(event.step)
        action = self._unstarted(step, event.call_id) or self._new_action(step, event.call_id, event.tool, {})
        action.started, action.arguments = event, action.arguments or event.arguments
        self._log_call(step, action)
        self.open_calls[(step.number, event.call_id)] = action
        self.started_calls.append(action)

    def _on_run_forked(self, event: RunForked) -> None:
        self.forked = self.forked or event

    def _on_model_sampled(self, event: ModelSampled) -> None:
        self.step(event.step).samples.append(event)

    def _on_tool_finished(self, event: ToolFinished) -> None:
        step = self.step(event.step)
        action = self.open_calls.pop((step.number, event.call_id), None)
        if action is None:  # no start recorded: place the call at its end
            action = self._unstarted(step, event.call_id) or self._new_action(step, event.call_id, event.tool, {})
            self._log_call(step, action)
        action.finished, action.output, action.details = event, event.output, event.details
        action.error, action.duration_ms, action.truncated = event.error, event.duration_ms, event.truncated
        if action.ran:
            self.totals.tool_calls += 1
        if event.outside:
            self.taint.add(event.step, event.outside)
        self._complete_if_done(step)

    def _complete_if_done(self, step: StepState) -> None:
        """Mark the step complete once its reply is understood or not and every call it asked for came back."""
        call = step.call
        if step.complete or len(step.requests) <= step.attempt or call is None or call.error:
            return
        if call.final_answer is not None:
            return  # the run's answer: nothing goes back to the model
        if call.format_error is None:
            answered = {a.call_id for a in step.actions if a.finished is not None}
            if any(c["id"] not in answered for c in call.tool_calls):
                return
            self.format_failures, self.narrowing = 0, None  # an answered step: its own repeats may narrow again
        else:
            self.format_failures += 1  # a reply not understood keeps the narrowing it was asked under
        step.complete, self.last_complete = True, step.number
        if self.window is not None:
            self.window.add(step)

    def _new_action(self, step: StepState, call_id: str, tool: str, arguments: dict[str, Any]) -> CallState:
        action = CallState(call_id, tool, arguments, step=step.number)
        step.actions.append(action)
        self.latest_calls[(step.number, call_id)] = action
        return action

    def _action(self, step: StepState, call_id: str, tool: str, arguments: dict[str, Any]) -> CallState:
        """The step's latest call with this id, created if needed."""
        action = self.latest_calls.get((step.number, call_id))
        if action is None:
            return self._new_action(step, call_id, tool, arguments)
        if arguments and not action.arguments:
            action.arguments = arguments
        return action

    def _unstarted(self, step: StepState, call_id: str) -> CallState | None:
        """The step's latest call with this id if it is known only from its approval (or its repeat)."""
        action = self.latest_calls.get((step.number, call_id))
        return action if action is not None and action.started is None and action.finished is None else None

    def _log_call(self, step: StepState, action: CallState) -> None:
        step.tool_calls.append(action)
        self.calls.append(action)


_FOLDS: dict[type[Event], Callable[[RunState, Any], None]] = {
    RunStarted: RunState._on_run_started,
    RunResumed: RunState._on_run_resumed,
    StepStarted: RunState._on_step_started,
    ModelDelta: RunState._on_model_delta,
    ModelFinished: RunState._on_model_finished,
    ToolStarted: RunState._on_tool_started,
    ToolFinished: RunState._on_tool_finished,
    ApprovalRequested: RunState._on_approval_requested,
    ApprovalDecided: RunState._on_approval_decided,
    OutputFlagged: RunState._on_output_flagged,
    CallRepeated: RunState._on_call_repeated,
    AnswerRequested: RunState._on_answer_requested,
    FinalAnswer: RunState._on_final_answer,
    RunFinished: RunState._on_run_finished,
    RunForked: RunState._on_run_forked,
    ModelSampled: RunState._on_model_sampled,
}
"""How each kind of event is folded in: every event type has its entry (a test checks)."""


def answer_request(repeat: CallRepeated, earlier: CallState | None, count: int) -> str:
    """The first half of the message after the narrowing repeat: the repeat named and its earlier result."""
    result, first = ("", repeat.first_step) if earlier is None else (earlier.output or "", earlier.step)
    return (
        f"You have asked for {repeat.tool} {canonical_arguments(repeat.arguments)} again "
        f"({plural(count, 'repeated call')} so far); it was made at step {first} and returned: "
        f"{clip(result, 500)}\nDo not call it again."
    )


NEVER_REUSED: frozenset[str] = frozenset({"remember"})
"""Tools whose calls always run, whatever their approval settings: they change what later runs see."""


def has_effects(tool: Tool, approval: Mapping[str, bool] | None = None) -> bool:
    """True when a call to ``tool`` may change something or needs a person: it is never replayed silently."""
    return tool.needs_approval or asks_first(tool, approval) or tool.name in NEVER_REUSED


class RecordedResults:
    """The finished tool calls of one original run (its state), ready to be reused by a fork of it.

    A branch that calls a tool with the same name and canonical arguments as the original run did (at any step)
    gets the original's observation back, in a ``ToolFinished`` whose ``reused_from`` names where it was recorded.
    Tools with effects are never replayed: a tool that asks for approval (by its own mark or the run's settings),
    an untrusted MCP tool (marked as needing approval) and the memory writer run, and ask, as they normally would.
    Only results without an error are reused: a failure may have been passing.
    """

    def __init__(self, original: RunState, *, session_id: str, skip: Iterable[str] = ()) -> None:
        self.original, self.session_id, self.run_id = original, session_id, original.run_id
        self.skip = frozenset(skip)
        """Tools whose recorded results are not reused (the per-tool opt-out)."""

    def reused(
        self, run_id: str, step: int, calls: Sequence[CallRequest], tools: ToolSet, approval: Mapping[str, bool]
    ) -> dict[str, ToolFinished]:
        """The ToolFinished of each call in ``calls`` that can be reused, by call id (for run ``run_id``)."""
        out: dict[str, ToolFinished] = {}
        for call in calls:
            tool = tools.get(call.name)
            if call.problem or tool is None or call.name in self.skip or has_effects(tool, approval):
                continue
            recorded = self.original.find(call.name, call.arguments)
            if recorded is None or recorded.finished is None or recorded.finished.error is not None:
                continue
            was = recorded.finished
            out[call.call_id] = ToolFinished(
                run_id=run_id,
                step=step,
                call_id=call.call_id,
                tool=call.name,
                output=was.output,
                details=was.details,
                truncated=was.truncated,
                outside=was.outside,
                reused_from={
                    "session": self.session_id,
                    "run": self.run_id,
                    "step": recorded.step,
                    "call_id": recorded.call_id,
                },
            )
        return out
