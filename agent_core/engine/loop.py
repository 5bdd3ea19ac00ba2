"""The ReAct loop: each step thinks (thinking.py), acts (acting.py) and observes, until an answer or a limit."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass

from agent_core.engine.acting import Acting
from agent_core.engine.context_window import Scratchpad, Turn, record_for
from agent_core.engine.protocols.protocol import Narrowing
from agent_core.engine.repeats import RepeatGuard, answer_request
from agent_core.engine.run_context import RunContext
from agent_core.engine.thinking import Thinking
from agent_core.events import (
    Event,
    FinalAnswer,
    ModelFinished,
    RunFinished,
    RunResumed,
    RunStarted,
    RunStatus,
    StepStarted,
    ToolFinished,
    Usage,
    plain,
)
from agent_core.guards.limits import CancelToken, Deadline, RunStopped
from agent_core.guards.taint import Taint
from agent_core.models.chat import ModelError
from agent_core.models.endpoints import recorded_endpoint
from agent_core.tools.retrieval import select_tools
from agent_core.tools.runner import CallRequest
from agent_core.tools.tool import Tool


@dataclass(frozen=True)
class ResumePoint:
    """Where an interrupted run picks up: its rebuilt scratchpad, next step and earlier events."""

    scratchpad: Scratchpad
    next_step: int
    earlier: tuple[Event, ...]
    narrowed: Narrowing | None = None
    """Set when the last complete step asked for the answer: the next request is narrowed again."""


class RunLoop:
    """One run of an agent (given as its RunContext); ``events()`` drives it."""

    def __init__(
        self, parts: RunContext, question: str, *, run_id: str, cancel: CancelToken, resume: ResumePoint | None = None
    ) -> None:
        self.parts, self.question, self.run_id, self.cancel = parts, question, run_id, cancel
        self.settings = parts.settings
        self.protocol = parts.protocol
        self.tools = list(parts.tools)
        self.resume = resume
        self.pad = resume.scratchpad if resume else Scratchpad(self.settings.keep_steps)
        self.usage, self.tool_calls, self.steps = _totals(resume.earlier) if resume else (Usage(), 0, 0)
        self.format_failures = 0
        self.deadline = Deadline(self.settings.time_limit)
        self.acting = Acting(parts, run_id, cancel, self.deadline, Taint.from_events(resume.earlier if resume else ()))
        self.guard = RepeatGuard(parts.tools, self.settings.repeat_policy, run_id, resume.earlier if resume else ())
        self.thinking = Thinking(parts, question, run_id, cancel, self.deadline, self.pad)
        self.thinking.narrowed = resume.narrowed if resume else None
        self.started = time.perf_counter()
        self.last_thought = ""
        self.offered: list[Tool] = self.tools

    def events(self) -> Iterator[Event]:
        """Run to the end, yielding every event; exactly one RunFinished comes last."""
        if self.resume is None:
            yield self._run_started()
        else:
            yield RunResumed(run_id=self.run_id, from_step=self.resume.next_step)
        status: RunStatus
        answer, status, error = None, "max_steps", f"no final answer after {self.settings.max_steps} steps"
        try:
            for step in range(self.resume.next_step if self.resume else 1, self.settings.max_steps + 1):
                self._check_limits()
                self.steps = step
                self.offered = self._offer()
                yield StepStarted(run_id=self.run_id, step=step, offered_tools=tuple(t.name for t in self.offered))
                asked = self.thinking.ask(step, self.offered)
                yield from asked.reader.deltas()
                outcome = self.thinking.conclude(asked)
                yield from outcome.events
                if asked.reader.failure is not None:
                    raise asked.reader.failure
                decision, finished = outcome.decision, outcome.finished
                self.usage += finished.usage
                self.last_thought = decision.thought
                if decision.final_answer is not None:
                    answer, status, error = decision.final_answer, "completed", None
                    break
                if decision.format_error is not None:
                    self._format_failure(finished)
                    self.thinking.narrowed = self.thinking.sent_narrowed  # an unusable reply keeps the narrowing
                    continue
                self.format_failures = 0
                yield from self._act(step, finished, decision.calls)
        except RunStopped as stop:
            status, error = stop.status, stop.message
        except ModelError as exc:
            status, error = self._status_of(exc), str(exc)
        except Exception as exc:  # a bug must still end the run with a clear status
            status, error = "error", f"internal error: {type(exc).__name__}: {exc}"
        yield from self._finish(answer, status, error)

    def _act(self, step: int, finished: ModelFinished, calls: tuple[CallRequest, ...]) -> Iterator[Event]:
        """Run the step's calls (a repeat is answered from the record), then keep the step in the scratchpad."""
        run, repeats = self.guard.split(calls)
        answered = self.guard.answer(step, repeats)
        yield from answered
        self.guard.stop_if_asked(repeats)
        results: list[ToolFinished] = [e for e in answered if isinstance(e, ToolFinished)]
        for event in self.acting.act(step, run) if run else ():
            self.guard.learn(event)
            if isinstance(event, ToolFinished):
                results.append(event)
                self.tool_calls += 1
            yield event
        by_id = {r.call_id: r for r in results}
        record = record_for(
            self.protocol, finished, [by_id[c.call_id] for c in calls if c.call_id in by_id], self.tools
        )
        narrowed = self.guard.after_step(
            step, repeats, [t.name for t in self.offered], self.protocol.describe_narrowing
        )
        self.thinking.narrowed = narrowed[0] if narrowed is not None else None
        if narrowed is not None:
            yield narrowed[1]
            record.messages.append(
                self.protocol.answer_request(answer_request(repeats, self.guard.repeats), narrowed[0])
            )
        self.pad.add(record)

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
        query = f"{self.question}\n{self.last_thought}"
        pinned = [t.name for t in self.tools if t.name in self.settings.pinned_tools]
        return select_tools(self.tools, query, limit=limit, pinned=pinned)

    def _format_failure(self, finished: ModelFinished) -> None:
        self.format_failures += 1
        if self.format_failures > self.settings.max_format_retries:
            raise RunStopped(
                "format_error",
                f"the model replied in an unusable format {self.format_failures} times in a row "
                f"(last problem: {finished.format_error})",
            )
        self.pad.add(record_for(self.protocol, finished, (), self.tools))

    def _finish(self, answer: str | None, status: RunStatus, error: str | None) -> Iterator[Event]:
        self.parts.memory.add(Turn(self.question, answer, status))
        if answer is not None:
            yield FinalAnswer(run_id=self.run_id, step=self.steps, text=answer)
        yield RunFinished(
            run_id=self.run_id,
            status=status,
            final_answer=answer,
            error=error,
            steps=self.steps,
            tool_calls=self.tool_calls,
            usage=self.usage,
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
            protocol=self.protocol.name,
            tools=tuple(t.schema for t in self.tools),
            settings=plain(self.settings),
            attachments=tuple(a.to_dict() for a in self.parts.attachments),
            endpoint=recorded_endpoint(self.parts.model),
        )


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
