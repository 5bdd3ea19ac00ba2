"""The ReAct loop: each step thinks (asks the model), acts (runs the calls it decided on) and observes, until an
answer or a limit.

``RunLoop`` drives one run; ``Thinking`` sends a step's request and reads what the reply decides; ``Acting`` runs a
step's calls (approvals, the tools, checks on what they return). Every event the loop yields is applied to the
run's ``RunState`` in one place (``RunLoop._applied``), and the loop reads the run from there: the context window,
the totals, the repeats and the calls made, the outside content read. A resumed run and a fork's branch are the
same loop, over a state folded from the recorded events.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Generator, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from agent_core.engine.approvals import OUTSIDE_READ, approval_key, asks_first, source_of
from agent_core.engine.attachments import user_content
from agent_core.engine.conversation import Turn
from agent_core.engine.protocols.protocol import Decision
from agent_core.engine.repeats import RepeatGuard
from agent_core.engine.run_context import RunContext
from agent_core.engine.state import ContextWindow, RunState
from agent_core.engine.streaming import ReplyReader
from agent_core.events import (
    ApprovalDecided,
    ApprovalRequested,
    Event,
    FinalAnswer,
    ModelFinished,
    OutputFlagged,
    RunFinished,
    RunResumed,
    RunStarted,
    RunStatus,
    StepStarted,
    ToolFinished,
    ToolStarted,
    Usage,
    plain,
)
from agent_core.guards.json_limits import tame
from agent_core.guards.limits import CancelToken, Deadline, RunStopped
from agent_core.guards.masking import check_value
from agent_core.models.chat import Completion, Message, ModelError, ModelRequest, estimate_messages, estimate_tokens
from agent_core.models.endpoints import recorded_endpoint
from agent_core.tools.retrieval import select_tools
from agent_core.tools.runner import CallRequest, CallResult, ToolRunner
from agent_core.tools.tool import Tool


class RunLoop:
    """One run of an agent (given as its RunContext): ``events()`` drives it, ``branch()`` a fork's branch.

    ``recorded``: the run's events so far (a resumed run, a fork's head), folded into its state before it goes on.
    """

    def __init__(
        self,
        parts: RunContext,
        question: str,
        *,
        run_id: str,
        cancel: CancelToken,
        recorded: Iterable[Event] = (),
    ) -> None:
        self.parts, self.question, self.run_id, self.cancel = parts, question, run_id, cancel
        self.settings = parts.settings
        self.tools = list(parts.tools)
        self.names = tuple(t.name for t in self.tools)
        """The tools' names (what a step offers unless fewer are picked, see ``_offer``)."""
        window = ContextWindow(parts.protocol, self.tools, self.settings.keep_steps)
        self.state = RunState(run_id, window=window)
        """The run folded so far: every event the loop yields is applied here (and nowhere else)."""
        for event in recorded:
            self.state.add(event)
        self.deadline = Deadline(self.settings.time_limit)
        self.thinking = Thinking(parts, question, run_id, cancel, self.deadline, self.state, window)
        self.acting = Acting(parts, run_id, cancel, self.deadline, self.state)
        self.guard = RepeatGuard(parts.tools, self.settings.repeat_policy, run_id, self.state)
        self.started = time.perf_counter()

    def events(self) -> Iterator[Event]:
        """Run to the end (a resumed run from its next step), yielding every event; one RunFinished comes last."""
        if self.state.run_started is None:
            opening: Event = self._run_started()
        else:
            opening = RunResumed(run_id=self.run_id, from_step=self.state.last_complete + 1)
        return self._applied(self._run(opening))

    def branch(self, step: int, calls: Sequence[CallRequest] = (), answer: str | None = None) -> Iterator[Event]:
        """A fork's branch after its recorded head: the edited ``step``'s ``calls`` run, then its ``answer`` ends the
        run, or the model is asked for the steps after it."""
        return self._applied(self._run(None, step, calls, answer))

    def _applied(self, events: Iterator[Event]) -> Iterator[Event]:
        """``events``, each applied to the run's state before it is passed on (and before the loop goes on)."""
        add = self.state.add
        for event in events:
            add(event)
            yield event

    def _run(
        self, opening: Event | None, step: int = 0, calls: Sequence[CallRequest] = (), answer: str | None = None
    ) -> Iterator[Event]:
        if opening is not None:
            yield opening
        status: RunStatus
        status, error = "max_steps", f"no final answer after {self.settings.max_steps} steps"
        try:
            if isinstance(opening, RunResumed):
                yield from self._after_last_step()
            if calls:
                yield from self.acting.act(step, calls)
            if answer is None:
                for step in range(self.state.last_complete + 1, self.settings.max_steps + 1):
                    answer = yield from self._step(step)
                    if answer is not None:
                        break
            if answer is not None:
                status, error = "completed", None
        except RunStopped as stop:
            status, error = stop.status, stop.message
        except ModelError as exc:
            status, error = self._status_of(exc), str(exc)
        except Exception as exc:  # a bug must still end the run with a clear status
            status, error = "error", f"internal error: {type(exc).__name__}: {exc}"
        yield from self._finish(answer, status, error)

    def _step(self, step: int) -> Generator[Event, None, str | None]:
        """Think, act and observe once; returns the final answer when the model gave one."""
        self._check_limits()
        offered = self._offer()
        names = self.names if offered is self.tools else tuple(t.name for t in offered)
        yield StepStarted(run_id=self.run_id, step=step, offered_tools=names)
        asked = self.thinking.ask(step, offered)
        yield from asked.reader.deltas()
        outcome = self.thinking.conclude(asked)
        yield from outcome.events
        if asked.reader.failure is not None:
            raise asked.reader.failure
        decision = outcome.decision
        if decision.final_answer is not None:
            return decision.final_answer
        if decision.format_error is not None:
            if self.state.format_failures > self.settings.max_format_retries:
                raise RunStopped(
                    "format_error",
                    f"the model replied in an unusable format {self.state.format_failures} times in a row "
                    f"(last problem: {decision.format_error})",
                )
            return None
        run, repeats = self.guard.split(decision.calls)
        yield from self.guard.answer(step, repeats)
        self.guard.stop_if_asked(repeats)
        if run:
            yield from self.acting.act(step, run)
        asked_for = self.guard.after_step(step, repeats, self.parts.protocol.describe_narrowing)
        if asked_for is not None:
            yield asked_for
        return None

    def _after_last_step(self) -> Iterator[Event]:
        """What the guard says after the last complete step, when the run was interrupted before it could (the
        request narrowed after its repeats, or the run ended); nothing when it had said it or another step began."""
        state = self.state
        last = state.step(state.last_complete) if state.last_complete else None
        if last is None or last.answer_requested is not None or state.totals.steps != last.number:
            return
        asked_for = self.guard.after_step(
            last.number, self.guard.recorded(last), self.parts.protocol.describe_narrowing
        )
        if asked_for is not None:
            yield asked_for

    def _check_limits(self) -> None:
        if self.cancel.cancelled:
            raise RunStopped("cancelled", "cancelled by the user")
        if self.deadline.expired:
            raise RunStopped("timeout", f"time limit of {self.settings.time_limit:g} s reached")

    def _offer(self) -> list[Tool]:
        """The tools put in front of the model this step: all of them, or the most relevant few."""
        limit = self.settings.max_tools
        if limit is None or len(self.tools) <= limit:
            return self.tools
        query = f"{self.question}\n{self.state.last_thought}"
        pinned = [t.name for t in self.tools if t.name in self.settings.pinned_tools]
        return select_tools(self.tools, query, limit=limit, pinned=pinned)

    def _finish(self, answer: str | None, status: RunStatus, error: str | None) -> Iterator[Event]:
        self.parts.memory.add(Turn(self.question, answer, status))
        totals = self.state.totals
        if answer is not None:
            yield FinalAnswer(run_id=self.run_id, step=totals.steps, text=answer)
        yield RunFinished(
            run_id=self.run_id,
            status=status,
            final_answer=answer,
            error=error,
            steps=totals.steps,
            tool_calls=totals.tool_calls,
            usage=totals.usage,
            duration_ms=(time.perf_counter() - self.started) * 1000,
        )

    def _status_of(self, exc: ModelError) -> RunStatus:
        if exc.kind == "cancelled" or self.cancel.cancelled:
            return "cancelled"
        return "timeout" if self.deadline.expired else "error"

    def _run_started(self) -> RunStarted:
        return RunStarted(
            run_id=self.run_id,
            question=self.question,
            model=self.parts.model.name,
            protocol=self.parts.protocol.name,
            tools=tuple(t.schema for t in self.tools),
            settings=plain(self.settings),
            attachments=tuple(a.to_dict() for a in self.parts.attachments),
            endpoint=recorded_endpoint(self.parts.model),
        )


@dataclass(frozen=True)
class Asked:
    """A request sent: its step, messages and prefix tokens, and the reader of its reply."""

    step: int
    messages: list[Message]
    prefix_tokens: int
    reader: ReplyReader


@dataclass(frozen=True)
class Concluded:
    """What one reply decided, and the events that report it."""

    decision: Decision
    finished: ModelFinished
    flagged: OutputFlagged | None
    """Set when the output check masked something in the reply (reported before ``finished``)."""

    @property
    def events(self) -> tuple[Event, ...]:
        """OutputFlagged (when set), then ModelFinished."""
        return (self.flagged, self.finished) if self.flagged is not None else (self.finished,)


class Thinking:
    """Asks the model for one run's steps: ``ask()`` sends a request, ``conclude()`` reads what its reply decided.

    A request is the prompt prefix (system prompt, earlier turns, the question), then the run's context window, in
    the shape its state's narrowing asks for (after repeated calls).
    """

    def __init__(
        self,
        parts: RunContext,
        question: str,
        run_id: str,
        cancel: CancelToken,
        deadline: Deadline,
        state: RunState,
        window: ContextWindow,
    ) -> None:
        self.parts, self.question, self.run_id, self.cancel, self.deadline = parts, question, run_id, cancel, deadline
        self.state, self.window = state, window
        self.offered: list[Tool] = list(parts.tools)
        self._prefixes: dict[tuple[str, ...], tuple[list[Message], int]] = {}
        self._offered_last: list[Tool] | None = None
        self._prefix_last: tuple[list[Message], int] | None = None
        self._last_request: list[Message] = []

    def ask(self, step: int, offered: list[Tool]) -> Asked:
        """Send the step's request with ``offered`` tools: the reply is read by iterating ``reader.deltas()``."""
        self.offered = offered
        prefix, prefix_tokens = self._prefix()
        messages = [*prefix, *self.window.messages()]
        reader = ReplyReader(
            self.parts.model,
            self._request(messages),
            self.parts.protocol,
            run_id=self.run_id,
            step=step,
            cancel=self.cancel,
            interval=self.parts.settings.delta_interval,
            deadline=self.deadline,
            check=self.parts.output_check,
        )
        return Asked(step, messages, prefix_tokens, reader)

    def conclude(self, asked: Asked) -> Concluded:
        """What the read reply decides and its ModelFinished (checked); a reply cut off is kept but not acted on."""
        reader, failure = asked.reader, asked.reader.failure
        completion = reader.completion
        if failure is not None:  # cut off mid-reply: what was written is kept (and counted), never acted on
            completion = Completion(text=reader.text) if reader.text else None
        decision = (
            self.parts.protocol.interpret(completion, self.parts.tools) if completion and not failure else Decision()
        )
        usage = self._usage(completion, asked.prefix_tokens)
        finished = self._model_finished(asked, completion, decision, usage)
        finished, flagged = self._checked(finished)
        if flagged is not None:
            decision = dataclasses.replace(decision, final_answer=finished.final_answer, thought=finished.thought)
        return Concluded(decision, finished, flagged)

    def _request(self, messages: list[Message]) -> ModelRequest:
        """The model call: sampling settings, ``max_tokens``, the run's remaining time and its cancel token."""
        protocol, narrowing = self.parts.protocol, self.state.narrowing
        if narrowing is None:
            options = protocol.request_options(self.offered)
        else:
            options = protocol.narrowed_options(self.offered, narrowing)
        return ModelRequest(
            messages,
            temperature=self.parts.settings.temperature,
            max_tokens=self.parts.settings.max_tokens,
            timeout=self.deadline.cap(None),
            cancel=self.cancel,
            **options,
        )

    def _usage(self, completion: Completion | None, prefix_tokens: int) -> Usage:
        if completion is None:  # the call failed before a word: nothing is known to be generated or counted
            return Usage()
        return completion.usage or Usage(
            prefix_tokens + self.window.estimate_tokens(),
            estimate_tokens(completion.text) + estimate_tokens(completion.reasoning),
            estimated=True,
        )

    def _model_finished(
        self, asked: Asked, completion: Completion | None, decision: Decision, usage: Usage
    ) -> ModelFinished:
        reader, failure, messages = asked.reader, asked.reader.failure, asked.messages
        completion = completion or Completion()
        kept = _shared_prefix(self._last_request, messages)
        self._last_request = messages
        return ModelFinished(
            run_id=self.run_id,
            step=asked.step,
            model=self.parts.model.name,
            text=completion.text,
            reasoning=completion.reasoning,
            thought=decision.thought,
            tool_calls=tuple(c.to_dict() for c in decision.tool_calls),
            final_answer=decision.final_answer,
            format_error=decision.format_error,
            error=str(failure) if failure else None,
            usage=usage,
            latency_ms=reader.latency_ms,
            ttft_ms=reader.ttft_ms,
            finish_reason=completion.finish_reason,
            retried_after=completion.retried_after,
            messages=tuple(messages[kept:]),
            messages_kept=kept,
        )

    def _checked(self, finished: ModelFinished) -> tuple[ModelFinished, OutputFlagged | None]:
        """Mask what the output check finds in the reply (its text, thought, reasoning and answer)."""
        check = self.parts.output_check
        if check is None or not (finished.text or finished.reasoning):
            return finished, None
        source = "final_answer" if finished.final_answer is not None else "model_output"
        fields = {"text": finished.text, "reasoning": finished.reasoning}
        raw = {name: check(value, source=source) for name, value in fields.items() if value}
        if not any(result.findings for result in raw.values()):
            return finished, None  # thought and answer are parts of the text or the reasoning: nothing to mask
        changes = {name: result.text for name, result in raw.items()}
        findings = [f for result in raw.values() for f in result.findings]
        for name in ("thought", "final_answer"):
            if value := getattr(finished, name):
                changes[name] = check(value, source=source).text
        unique = tuple({f.masked: {"kind": f.kind, "label": f.label, "masked": f.masked} for f in findings}.values())
        flagged = OutputFlagged(run_id=self.run_id, step=finished.step, source=source, findings=unique)
        return dataclasses.replace(finished, **changes), flagged

    def _prefix(self) -> tuple[list[Message], int]:
        """System prompt (with the summary of older turns), recent turns and the question; and their tokens.

        Fixed for the run unless the offered tools change (tool retrieval), hence cached by tool names.
        """
        if self.offered is self._offered_last and self._prefix_last is not None:
            return self._prefix_last  # the same tools as the step before (every step, without tool retrieval)
        key = tuple(t.name for t in self.offered)
        self._offered_last = self.offered
        if key not in self._prefixes:
            memory = self.parts.memory
            system = self.parts.protocol.system_prompt(self.offered, self.parts.instructions)
            summary = memory.summary()
            if summary:
                system += f"\n\nSummary of the earlier conversation:\n{summary}"
            prefix = [
                {"role": "system", "content": system},
                *memory.messages(self.parts.protocol.history_answer),
                {"role": "user", "content": user_content(self.question, self.parts.attachments)},
            ]
            self._prefixes[key] = (prefix, estimate_messages(prefix))
        self._prefix_last = self._prefixes[key]
        return self._prefix_last


def _shared_prefix(before: list[Message], now: list[Message]) -> int:
    """How many leading messages ``now`` shares with ``before`` (the same objects: the context is reused)."""
    count = 0
    for old, new in zip(before, now, strict=False):
        if old is not new and old != new:
            break
        count += 1
    return count


class Acting:
    """Runs a step's tool calls for one run, yielding every event on the way; reads the run's taint off its state."""

    def __init__(
        self, parts: RunContext, run_id: str, cancel: CancelToken, deadline: Deadline, state: RunState
    ) -> None:
        self.parts, self.run_id, self.cancel, self.deadline, self.state = parts, run_id, cancel, deadline, state
        settings = parts.settings
        self.runner = ToolRunner(
            parts.tools, timeout=settings.tool_timeout, max_output_chars=settings.max_observation_chars
        )

    def act(self, step: int, calls: Sequence[CallRequest]) -> Iterator[Event]:
        """Approve, start, run and check ``calls``: every event, their ToolFinished in call order."""
        read = self.state.taint.summary()  # the outside content read before this step's calls
        denied: set[str] = set()
        for decided in self._approve(step, calls):
            if isinstance(decided, ApprovalDecided) and not decided.approved:
                denied.add(decided.call_id)
            yield decided
        for call in calls:
            yield ToolStarted(
                run_id=self.run_id, step=step, call_id=call.call_id, tool=call.name, arguments=tame(call.arguments)
            )
        allowed = [c for c in calls if c.call_id not in denied]
        reused = self._reused(step, allowed)
        results = self._started([c for c in allowed if c.call_id not in reused], read)
        for call in calls:
            if call.call_id in reused:  # a fork's recorded result: the tool is not called again
                yield reused[call.call_id]
                continue
            result = _denial(call) if call.call_id in denied else next(results)
            event, flagged = self._checked(step, call, result)
            if flagged is not None:
                yield flagged
            yield event

    def _started(self, calls: Sequence[CallRequest], read: str | None) -> Iterator[CallResult]:
        """The calls' results; every call is started at once, while ``OUTSIDE_READ`` says what the run has ``read``."""
        token = OUTSIDE_READ.set(read)
        try:
            results = self.runner.run_each(calls, cancel=self.cancel, deadline=self.deadline)
            first = next(results, None)  # run_each submits every call before it returns the first result
        finally:
            OUTSIDE_READ.reset(token)
        if first is not None:
            yield first
            yield from results

    def _reused(self, step: int, calls: Sequence[CallRequest]) -> dict[str, ToolFinished]:
        recorded = self.parts.recorded
        if recorded is None:
            return {}
        return recorded.reused(self.run_id, step, calls, self.parts.tools, self.parts.settings.tool_approval)

    def _approve(self, step: int, calls: Sequence[CallRequest]) -> Iterator[ApprovalRequested | ApprovalDecided]:
        """Ask for (and wait on) the approvals the calls need; a denied call is one decided ``approved=False``."""
        for call in calls:
            tool = self.parts.tools.get(call.name)
            if tool is None or call.problem:
                continue
            reason = self._reason(tool, call)
            if reason is None and not asks_first(tool, self.parts.settings.tool_approval):
                continue
            common: dict[str, Any] = {"run_id": self.run_id, "step": step, "call_id": call.call_id, "tool": call.name}
            if not self.parts.settings.require_approval:
                yield ApprovalDecided(**common, approved=True, by="policy")
                continue
            yield ApprovalRequested(**common, arguments=call.arguments, reason=reason)
            waited_from = time.monotonic()
            approved = self.parts.approvals.wait(approval_key(self.run_id, step, call.call_id), self.cancel)
            self.deadline.extend(time.monotonic() - waited_from)  # a person's thinking time is not the agent's
            if approved is None:
                raise RunStopped("cancelled", f"cancelled while waiting for approval of {call.name}")
            yield ApprovalDecided(**common, approved=approved)

    def _reason(self, tool: Tool, call: CallRequest) -> str | None:
        """Why outside content makes this call ask (None when it does not, or the user trusts the tool outright)."""
        if self.parts.settings.tool_approval.get(tool.name) is False:
            return None
        return self.state.taint.reason(tool, call.arguments)

    def _checked(self, step: int, call: CallRequest, result: CallResult) -> tuple[ToolFinished, OutputFlagged | None]:
        output, details, findings = result.output, _json_safe(result.details), []
        check = self.parts.output_check
        if check is not None:
            checked = check(output, source="tool_output")
            output, findings = checked.text, list(checked.findings)
            if details is not None:
                details, more = check_value(details, check, source="tool_output")
                findings += more
        event = ToolFinished(
            run_id=self.run_id,
            step=step,
            call_id=call.call_id,
            tool=call.name,
            output=output,
            details=details,
            error=result.error,
            duration_ms=result.duration_ms,
            truncated=result.truncated,
            outside=self._source(call, result, details),
        )
        if not findings:
            return event, None
        flagged = OutputFlagged(
            run_id=self.run_id,
            step=step,
            source="tool_output",
            call_id=call.call_id,
            findings=tuple(_public(f.to_dict()) for f in findings),
        )
        return event, flagged

    def _source(self, call: CallRequest, result: CallResult, details: Any) -> str | None:
        tool = self.parts.tools.get(call.name)
        if tool is None or result.error is not None:
            return None
        return source_of(tool, call.arguments, details)


def _denial(call: CallRequest) -> CallResult:
    message = f"the user denied this call to {call.name}"
    return CallResult(f"Error: {message}. Do not retry it; answer with what you have or ask the user.", error=message)


def _public(finding: dict[str, Any]) -> dict[str, Any]:
    """A finding without offsets into a text that no longer exists in that form."""
    return {"kind": finding["kind"], "label": finding["label"], "masked": finding["masked"]}


def _json_safe(value: Any) -> Any:
    """Details as plain JSON that can be stored, exported and imported again (see ``value_limits.tame``)."""
    if value is None or isinstance(value, (str, bool)):
        return value
    try:
        return tame(json.loads(json.dumps(tame(value), default=str)))
    except (TypeError, ValueError, RecursionError):
        return str(value)[:2000]
