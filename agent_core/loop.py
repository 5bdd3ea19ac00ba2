"""The ReAct loop: think (model call) → act (tool calls) → observe, until an answer or a guard stops it."""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agent_core.events import (
    Event,
    FinalAnswer,
    ModelDelta,
    ModelFinished,
    RunFinished,
    RunResumed,
    RunStarted,
    StepStarted,
    ToolFinished,
    ToolStarted,
    Usage,
)
from agent_core.guards import CancelToken, Deadline, RunStopped
from agent_core.memory import Scratchpad, Turn, record_for
from agent_core.models.base import Completion, Message, ModelRequest
from agent_core.models.errors import ModelError
from agent_core.protocols.base import Decision
from agent_core.tokens import estimate_messages, estimate_tokens
from agent_core.tools.runner import ToolRunner

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
        self.runner = ToolRunner(
            agent.tools, timeout=self.settings.tool_timeout, max_output_chars=self.settings.max_observation_chars
        )
        self.resume = resume
        self.pad = resume.scratchpad if resume else Scratchpad(self.settings.keep_steps)
        self.usage, self.tool_calls, self.steps = _totals(resume.earlier) if resume else (Usage(), 0, 0)
        self.format_failures = 0
        self.deadline = Deadline(self.settings.time_limit)
        self.started = time.perf_counter()
        self.prefix = self._prefix()
        self.prefix_tokens = estimate_messages([*self.prefix, {"content": question}])

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
                yield StepStarted(run_id=self.run_id, step=step, offered_tools=tuple(t.name for t in self.tools))
                decision, finished = yield from self._think(step)
                if decision.final_answer is not None:
                    answer, status, error = decision.final_answer, "completed", None
                    break
                if decision.format_error is not None:
                    self._format_failure(finished)
                    continue
                self.format_failures = 0
                yield from self._act(step, decision, finished)
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

    def _think(self, step: int) -> Iterator[Event]:
        messages = self._messages()
        request = ModelRequest(
            messages,
            temperature=self.settings.temperature,
            timeout=self.deadline.cap(None),
            cancel=self.cancel,
            **self.protocol.request_options(self.tools),
        )
        timing = _Timing()
        completion: Completion | None = None
        failure: Exception | None = None
        try:
            completion = yield from self._stream(step, request, timing)
        except (ModelError, RunStopped) as exc:
            failure = exc
        decision = self.protocol.interpret(completion, self.agent.tools) if completion else Decision()
        finished = self._model_finished(step, messages, completion, decision, timing, failure)
        yield finished
        if failure is not None:
            raise failure
        return decision, finished

    def _stream(self, step: int, request: ModelRequest, timing: _Timing) -> Iterator[Event]:
        text, shown, last_shown = "", 0, 0.0
        interval = self.settings.delta_interval
        stream: Iterator[Any] = iter(())
        try:
            stream = iter(self.agent.model.stream(request))
            while True:
                item = timing.next(stream)
                if item is None:
                    raise ModelError("server", f"model {self.agent.model.name!r} ended without a completion")
                if isinstance(item, Completion):
                    if len(text) > shown:
                        yield ModelDelta(run_id=self.run_id, step=step, text=text[shown:])
                    return item
                if self.cancel.cancelled:
                    raise RunStopped("cancelled", "cancelled by the user while the model was writing")
                if item.channel == "reasoning":
                    yield ModelDelta(run_id=self.run_id, step=step, text=item.text, channel="reasoning")
                    continue
                text += item.text
                cut = self._cut(text, item.text)
                end = len(text) if cut is None else cut
                now = time.perf_counter()
                if end > shown and (cut is not None or now - last_shown >= interval):
                    yield ModelDelta(run_id=self.run_id, step=step, text=text[shown:end])
                    shown, last_shown = end, now
                if cut is not None:  # the model is writing its own Observation: stop reading
                    return Completion(text=text, finish_reason="stop_at_observation")
        finally:
            close = getattr(stream, "close", None)
            if close is not None:
                close()

    def _cut(self, text: str, piece: str) -> int | None:
        """Where to cut streamed text; the protocol is asked only when a label may have just ended."""
        if ":" not in piece and "：" not in piece:
            return None
        tail = text[-(len(piece) + 16) :].lower()
        if "observation" not in tail and "观察" not in tail:
            return None
        return self.protocol.cut_index(text)

    def _model_finished(
        self,
        step: int,
        messages: list[Message],
        completion: Completion | None,
        decision: Decision,
        timing: _Timing,
        failure: Exception | None,
    ) -> ModelFinished:
        if completion is None:  # the call failed: nothing was generated, nothing is counted
            completion, usage = Completion(), Usage()
        else:
            usage = completion.usage or Usage(
                self.prefix_tokens + self.pad.estimate_tokens(),
                estimate_tokens(completion.text) + estimate_tokens(completion.reasoning),
                estimated=True,
            )
        self.usage += usage
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
            messages=tuple(messages),
        )

    def _format_failure(self, finished: ModelFinished) -> None:
        self.format_failures += 1
        if self.format_failures > self.settings.max_format_retries:
            raise RunStopped(
                "format_error",
                f"the model replied in an unusable format {self.format_failures} times in a row "
                f"(last problem: {finished.format_error})",
            )
        self.pad.add(record_for(self.protocol, finished, (), self.tools))

    def _act(self, step: int, decision: Decision, finished: ModelFinished) -> Iterator[Event]:
        for call in decision.calls:
            yield ToolStarted(
                run_id=self.run_id, step=step, call_id=call.call_id, tool=call.name, arguments=call.arguments
            )
        results = self.runner.run(decision.calls, cancel=self.cancel, deadline=self.deadline)
        done = [
            ToolFinished(
                run_id=self.run_id,
                step=step,
                call_id=call.call_id,
                tool=call.name,
                output=result.output,
                details=_json_safe(result.details),
                error=result.error,
                duration_ms=result.duration_ms,
                truncated=result.truncated,
            )
            for call, result in zip(decision.calls, results, strict=True)
        ]
        yield from done
        self.tool_calls += len(done)
        self.pad.add(record_for(self.protocol, finished, done, self.tools))

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

    def _prefix(self) -> list[Message]:
        """System prompt (with the summary of older turns) and recent turns: fixed for the whole run."""
        memory = self.agent.memory
        system = self.protocol.system_prompt(self.tools, self.agent.instructions)
        summary = memory.summary()
        if summary:
            system += f"\n\nSummary of the earlier conversation:\n{summary}"
        return [{"role": "system", "content": system}, *memory.messages(self.protocol.history_answer)]

    def _messages(self) -> list[Message]:
        return [*self.prefix, {"role": "user", "content": self.question}, *self.pad.messages()]

    def _run_started(self) -> RunStarted:
        return RunStarted(
            run_id=self.run_id,
            question=self.question,
            model=self.agent.model.name,
            protocol=self.protocol.name,
            tools=tuple(t.schema for t in self.tools),
            settings=dataclasses.asdict(self.settings),
        )


class _Timing:
    """Time spent inside the model's stream only (not in whoever consumes our events)."""

    def __init__(self) -> None:
        self.total_ms = 0.0
        self.first_ms: float | None = None

    def next(self, stream: Iterator[Any]) -> Any:
        begin = time.perf_counter()
        try:
            item = next(stream, None)
        finally:
            self.total_ms += (time.perf_counter() - begin) * 1000
        if self.first_ms is None and item is not None and not isinstance(item, Completion) and item.text:
            self.first_ms = self.total_ms
        return item


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


def _json_safe(value: Any) -> Any:
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    try:
        return json.loads(json.dumps(value, default=str))
    except (TypeError, ValueError):
        return str(value)
