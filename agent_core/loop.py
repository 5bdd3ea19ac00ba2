"""The ReAct loop: think (model call) → act (tool calls) → observe, until an answer or a guard stops it."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent_core.acting import Acting
from agent_core.context import Scratchpad, Turn, record_for
from agent_core.events import (
    Event,
    FinalAnswer,
    ModelFinished,
    OutputFlagged,
    RunFinished,
    RunResumed,
    RunStarted,
    StepStarted,
    ToolFinished,
    Usage,
    plain,
)
from agent_core.limits import CancelToken, Deadline, RunStopped
from agent_core.models.base import Completion, Message, ModelRequest
from agent_core.models.errors import ModelError
from agent_core.protocols.base import Decision
from agent_core.streaming import Timing, stream_reply
from agent_core.tokens import estimate_messages, estimate_tokens
from agent_core.tools.base import Tool
from agent_core.tools.retrieval import select_tools

if TYPE_CHECKING:
    from agent_core.agent import Agent


@dataclass(frozen=True)
class ResumePoint:
    """Where an interrupted run picks up: its rebuilt scratchpad, next step and earlier events."""

    scratchpad: Scratchpad
    next_step: int
    earlier: tuple[Event, ...]


class RunLoop:
    """One run of an agent; ``events()`` drives it."""

    def __init__(
        self, agent: Agent, question: str, *, run_id: str, cancel: CancelToken, resume: ResumePoint | None = None
    ) -> None:
        self.agent, self.question, self.run_id, self.cancel = agent, question, run_id, cancel
        self.settings = agent.settings
        self.protocol = agent.protocol
        self.tools = list(agent.tools)
        self.resume = resume
        self.pad = resume.scratchpad if resume else Scratchpad(self.settings.keep_steps)
        self.usage, self.tool_calls, self.steps = _totals(resume.earlier) if resume else (Usage(), 0, 0)
        self.format_failures = 0
        self.deadline = Deadline(self.settings.time_limit)
        self.acting = Acting(agent, run_id, cancel, self.deadline)
        self.started = time.perf_counter()
        self.last_thought = ""
        self.offered: list[Tool] = self.tools
        self._prefixes: dict[tuple[str, ...], tuple[list[Message], int]] = {}
        self._last_request: list[Message] = []

    def events(self) -> Iterator[Event]:
        """Run to the end, yielding every event; exactly one RunFinished comes last."""
        if self.resume is None:
            yield self._run_started()
        else:
            yield RunResumed(run_id=self.run_id, from_step=self.resume.next_step)
        answer, status, error = None, "max_steps", f"no final answer after {self.settings.max_steps} steps"
        try:
            for step in range(self.resume.next_step if self.resume else 1, self.settings.max_steps + 1):
                self._check_guards()
                self.steps = step
                self.offered = self._offer()
                yield StepStarted(run_id=self.run_id, step=step, offered_tools=tuple(t.name for t in self.offered))
                decision, finished = yield from self._think(step)
                if decision.final_answer is not None:
                    answer, status, error = decision.final_answer, "completed", None
                    break
                if decision.format_error is not None:
                    self._format_failure(finished)
                    continue
                self.format_failures = 0
                done = yield from self.acting.act(step, decision.calls)
                self.tool_calls += len(done)
                self.pad.add(record_for(self.protocol, finished, done, self.tools))
        except RunStopped as stop:
            status, error = stop.status, stop.message
        except ModelError as exc:
            status, error = self._status_of(exc), str(exc)
        except Exception as exc:  # a bug must still end the run with a clear status
            status, error = "error", f"internal error: {type(exc).__name__}: {exc}"
        yield from self._finish(answer, status, error)

    def _check_guards(self) -> None:
        if self.cancel.cancelled:
            raise RunStopped("cancelled", "cancelled by the user")
        if self.deadline.expired:
            raise RunStopped("timeout", f"time limit of {self.settings.time_limit:g} s reached")

    def _offer(self) -> list[Tool]:
        """The tools put in front of the model this step: all of them, or the most relevant few."""
        limit = self.settings.max_tools
        if limit is None or len(self.tools) <= limit:
            return self.tools
        query = f"{self.question}\n{self.last_thought}"
        pinned = [t for t in self.tools if t.name in self.settings.pinned_tools]
        return select_tools(self.tools, query, limit=limit, pinned=pinned)

    def _think(self, step: int) -> Iterator[Event]:
        prefix, prefix_tokens = self._prefix()
        messages = [*prefix, *self.pad.messages()]
        request = ModelRequest(
            messages,
            temperature=self.settings.temperature,
            max_tokens=self.settings.max_tokens,
            timeout=self.deadline.cap(None),
            cancel=self.cancel,
            **self.protocol.request_options(self.offered),
        )
        timing = Timing()
        completion: Completion | None = None
        failure: Exception | None = None
        try:
            completion = yield from stream_reply(
                self.agent.model,
                request,
                self.protocol,
                run_id=self.run_id,
                step=step,
                cancel=self.cancel,
                timing=timing,
                interval=self.settings.delta_interval,
                deadline=self.deadline,
                check=self.agent.output_check,
            )
        except (ModelError, RunStopped) as exc:
            failure = exc
        decision = self.protocol.interpret(completion, self.agent.tools) if completion else Decision()
        usage = self._usage(completion, prefix_tokens)
        finished = self._model_finished(step, messages, completion, decision, timing, failure, usage)
        finished, flagged = self._checked(finished)
        if flagged is not None:
            yield flagged
            decision = dataclasses.replace(decision, final_answer=finished.final_answer, thought=finished.thought)
        yield finished
        if failure is not None:
            raise failure
        self.last_thought = decision.thought
        return decision, finished

    def _usage(self, completion: Completion | None, prefix_tokens: int) -> Usage:
        if completion is None:  # the call failed: nothing was generated, nothing is counted
            return Usage()
        return completion.usage or Usage(
            prefix_tokens + self.pad.estimate_tokens(),
            estimate_tokens(completion.text) + estimate_tokens(completion.reasoning),
            estimated=True,
        )

    def _model_finished(
        self,
        step: int,
        messages: list[Message],
        completion: Completion | None,
        decision: Decision,
        timing: Timing,
        failure: Exception | None,
        usage: Usage,
    ) -> ModelFinished:
        completion = completion or Completion()
        self.usage += usage
        kept = _shared_prefix(self._last_request, messages)
        self._last_request = messages
        return ModelFinished(
            run_id=self.run_id,
            step=step,
            model=self.agent.model.name,
            text=completion.text,
            reasoning=completion.reasoning,
            thought=decision.thought,
            tool_calls=tuple(c.to_dict() for c in decision.tool_calls),
            final_answer=decision.final_answer,
            format_error=decision.format_error,
            error=str(failure) if failure else None,
            usage=usage,
            latency_ms=timing.total_ms,
            ttft_ms=timing.first_ms,
            finish_reason=completion.finish_reason,
            messages=tuple(messages[kept:]),
            messages_kept=kept,
        )

    def _checked(self, finished: ModelFinished) -> tuple[ModelFinished, OutputFlagged | None]:
        """Mask what the output check finds in the reply (its text, thought, reasoning and answer)."""
        check = self.agent.output_check
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

    def _format_failure(self, finished: ModelFinished) -> None:
        self.format_failures += 1
        if self.format_failures > self.settings.max_format_retries:
            raise RunStopped(
                "format_error",
                f"the model replied in an unusable format {self.format_failures} times in a row "
                f"(last problem: {finished.format_error})",
            )
        self.pad.add(record_for(self.protocol, finished, (), self.tools))

    def _finish(self, answer: str | None, status: str, error: str | None) -> Iterator[Event]:
        self.agent.memory.add(Turn(self.question, answer, status))
        if answer is not None:
            yield FinalAnswer(run_id=self.run_id, step=self.steps, text=answer)
        yield RunFinished(
            run_id=self.run_id,
            status=status,  # type: ignore[arg-type]
            final_answer=answer,
            error=error,
            steps=self.steps,
            tool_calls=self.tool_calls,
            usage=self.usage,
            duration_ms=(time.perf_counter() - self.started) * 1000,
        )

    def _status_of(self, exc: ModelError) -> str:
        if exc.kind == "cancelled" or self.cancel.cancelled:
            return "cancelled"
        return "timeout" if self.deadline.expired else "error"

    def _prefix(self) -> tuple[list[Message], int]:
        """System prompt (with the summary of older turns), recent turns and the question; and their tokens.

        Fixed for the run unless the offered tools change (tool retrieval), hence cached by tool names.
        """
        key = tuple(t.name for t in self.offered)
        if key not in self._prefixes:
            memory = self.agent.memory
            system = self.protocol.system_prompt(self.offered, self.agent.instructions)
            summary = memory.summary()
            if summary:
                system += f"\n\nSummary of the earlier conversation:\n{summary}"
            prefix = [
                {"role": "system", "content": system},
                *memory.messages(self.protocol.history_answer),
                {"role": "user", "content": self.question},
            ]
            self._prefixes[key] = (prefix, estimate_messages(prefix))
        return self._prefixes[key]

    def _run_started(self) -> RunStarted:
        return RunStarted(
            run_id=self.run_id,
            question=self.question,
            model=self.agent.model.name,
            protocol=self.protocol.name,
            tools=tuple(t.schema for t in self.tools),
            settings=plain(self.settings),
        )


def _shared_prefix(before: list[Message], now: list[Message]) -> int:
    """How many leading messages ``now`` shares with ``before`` (the same objects: the context is reused)."""
    count = 0
    for old, new in zip(before, now, strict=False):
        if old is not new and old != new:
            break
        count += 1
    return count


def _totals(events: tuple[Event, ...]) -> tuple[Usage, int, int]:
    usage, calls, steps = Usage(), 0, 0
    for event in events:
        if isinstance(event, ModelFinished):
            usage += event.usage
        elif isinstance(event, ToolFinished):
            calls += 1
        elif isinstance(event, StepStarted):
            steps = event.step
    return usage, calls, steps
