"""The think half of a step: the request (prompt prefix and scratchpad), the model call, its decision, checks."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from agent_core.engine.attachments import user_content
from agent_core.engine.context_window import Scratchpad
from agent_core.engine.protocols.protocol import Decision, Narrowing
from agent_core.engine.run_context import RunContext
from agent_core.engine.streaming import ReplyReader
from agent_core.events import Event, ModelFinished, OutputFlagged, Usage
from agent_core.guards.limits import CancelToken, Deadline
from agent_core.models.chat import Completion, Message, ModelRequest, estimate_messages, estimate_tokens
from agent_core.tools.tool import Tool


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
    """Asks the model for one run's steps: ``ask()`` sends a request, ``conclude()`` reads what its reply decided."""

    def __init__(
        self, parts: RunContext, question: str, run_id: str, cancel: CancelToken, deadline: Deadline, pad: Scratchpad
    ) -> None:
        self.parts, self.question, self.run_id, self.cancel, self.deadline = parts, question, run_id, cancel, deadline
        self.pad = pad
        """The run's steps so far, shared with the loop (which adds each finished step)."""
        self.offered: list[Tool] = list(parts.tools)
        self._prefixes: dict[tuple[str, ...], tuple[list[Message], int]] = {}
        self._last_request: list[Message] = []
        self.narrowed: Narrowing | None = None
        """Set when the next request must be narrowed (after repeated calls); reset once sent."""
        self.sent_narrowed: Narrowing | None = None
        """The narrowing of the last request sent (None if it was not narrowed)."""

    def ask(self, step: int, offered: list[Tool]) -> Asked:
        """Send the step's request with ``offered`` tools: the reply is read by iterating ``reader.deltas()``."""
        self.offered = offered
        prefix, prefix_tokens = self._prefix()
        messages = [*prefix, *self.pad.messages()]
        request = self._request(messages)
        self.sent_narrowed, self.narrowed = self.narrowed, None
        reader = ReplyReader(
            self.parts.model,
            request,
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
        protocol, narrowed = self.parts.protocol, self.narrowed
        if narrowed is None:
            options = protocol.request_options(self.offered)
        else:
            options = protocol.narrowed_options(self.offered, narrowed)
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
            prefix_tokens + self.pad.estimate_tokens(),
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
        key = tuple(t.name for t in self.offered)
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
        return self._prefixes[key]


def _shared_prefix(before: list[Message], now: list[Message]) -> int:
    """How many leading messages ``now`` shares with ``before`` (the same objects: the context is reused)."""
    count = 0
    for old, new in zip(before, now, strict=False):
        if old is not new and old != new:
            break
        count += 1
    return count
