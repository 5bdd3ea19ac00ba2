"""What goes into the context window: recent turns in full, a summary of older ones, and a bounded scratchpad.

Both structures can be rebuilt from the event log, which is how a loaded, imported or resumed
session gets its conversation back.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agent_core.engine.protocols.protocol import AgentProtocol
from agent_core.events import Event, ModelFinished, RunFinished, RunStarted, ToolFinished
from agent_core.formatting import clip
from agent_core.models.chat import ChatModel, Message, ModelRequest, complete, estimate_messages, estimate_tokens
from agent_core.tools.tool import Tool


@dataclass(frozen=True)
class Turn:
    """One finished question/answer exchange."""

    question: str
    answer: str | None
    status: str = "completed"


Summarizer = Callable[[Sequence[Turn], int], str]
"""Turns to summarise and a character budget → a short summary."""


def digest_summary(turns: Sequence[Turn], max_chars: int) -> str:
    """Deterministic summary: one short line per exchange, newest kept when space runs out."""
    lines: list[str] = []
    used = 0
    for turn in reversed(turns):
        answer = turn.answer if turn.answer is not None else f"(no answer: {turn.status})"
        line = f"- Q: {clip(turn.question, 160, one_line=True)} → A: {clip(answer, 240, one_line=True)}"
        if used + len(line) > max_chars and lines:
            break
        lines.append(line)
        used += len(line) + 1
    omitted = len(turns) - len(lines)
    head = [f"({omitted} earlier exchanges omitted)"] if omitted else []
    return "\n".join(head + list(reversed(lines)))


class ConversationMemory:
    """The conversation so far; renders recent turns in full and older ones as a summary within a budget."""

    def __init__(
        self,
        turns: Iterable[Turn] = (),
        *,
        budget_tokens: int = 3000,
        recent_turns: int = 6,
        summarizer: Summarizer | None = None,
    ) -> None:
        self.turns: list[Turn] = list(turns)
        self.budget_tokens = budget_tokens
        self.recent_turns = recent_turns
        self.summarizer = summarizer or digest_summary

    def add(self, turn: Turn) -> None:
        """Remember a finished exchange."""
        self.turns.append(turn)

    def split(self) -> tuple[list[Turn], list[Turn]]:
        """(older, recent): recent turns fit in ~3/4 of the budget, newest first, at most ``recent_turns``."""
        recent: list[Turn] = []
        used = 0
        for turn in reversed(self.turns):
            cost = estimate_tokens(turn.question) + estimate_tokens(turn.answer or "") + 8
            if len(recent) >= self.recent_turns or (recent and used + cost > self.budget_tokens * 3 // 4):
                break
            recent.append(turn)
            used += cost
        recent.reverse()
        return self.turns[: len(self.turns) - len(recent)], recent

    def summary(self) -> str | None:
        """A summary of the turns that no longer fit in full, or None."""
        older, _ = self.split()
        if not older:
            return None
        max_chars = max(200, self.budget_tokens)  # about a quarter of the budget, in tokens
        try:
            text = self.summarizer(older, max_chars)
        except Exception:
            text = digest_summary(older, max_chars)
        return text[:max_chars]

    def messages(self, answer_format: Callable[[str], str] = lambda a: a) -> list[Message]:
        """Recent turns as user/assistant messages (the summary goes into the system prompt)."""
        out: list[Message] = []
        for turn in self.split()[1]:
            answer = turn.answer if turn.answer is not None else f"(I could not answer: {turn.status})"
            out.append({"role": "user", "content": turn.question})
            out.append({"role": "assistant", "content": answer_format(answer)})
        return out

    @classmethod
    def from_events(cls, events: Iterable[Event], **options: Any) -> ConversationMemory:
        """Rebuild the conversation of a session from its event log (finished runs only)."""
        memory = cls(**options)
        questions: dict[str, str] = {}
        for event in events:
            if isinstance(event, RunStarted):
                questions[event.run_id] = event.question
            elif isinstance(event, RunFinished) and event.run_id in questions:
                memory.add(Turn(questions.pop(event.run_id), event.final_answer, event.status))
        return memory


def model_summarizer(model: ChatModel) -> Summarizer:
    """A summarizer that asks ``model`` (a ChatModel) for the summary; falls back to the digest on error."""

    def summarize(turns: Sequence[Turn], max_chars: int) -> str:
        transcript = digest_summary(turns, max_chars * 4)
        prompt = (
            "Summarise this conversation in a few short bullet points, keeping names, numbers, dates and "
            f"results that later questions may refer to. At most {max_chars} characters.\n\n{transcript}"
        )
        request = ModelRequest([{"role": "user", "content": prompt}], temperature=0, timeout=30)
        return complete(model, request).text.strip() or transcript[:max_chars]

    return summarize


@dataclass
class StepRecord:
    """The context messages of one finished step, and a one-line digest for when it gets old."""

    messages: list[Message]
    digest: str
    tokens: int = -1
    """Estimated tokens of ``messages``; computed once when the step is added."""


class Scratchpad:
    """The current run's steps: the last ``keep_steps`` (up to twice that) in full, older ones as short digests."""

    def __init__(self, keep_steps: int = 6, max_digests: int = 30) -> None:
        self.recent: deque[StepRecord] = deque()
        self.keep_steps = keep_steps
        self.digests: deque[str] = deque(maxlen=max_digests)
        self.condensed = 0
        self._recent_tokens = 0
        self._note: Message | None = None

    def add(self, record: StepRecord) -> None:
        """Append a step; the oldest full step turns into a digest when there are too many."""
        if record.tokens < 0:
            record.tokens = estimate_messages(record.messages)
        self.recent.append(record)
        self._recent_tokens += record.tokens
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

    def messages(self) -> list[Message]:
        """Messages for the context: a condensed note for old steps, then recent steps in full."""
        out: list[Message] = [note] if (note := self.note()) else []
        for record in self.recent:
            out.extend(record.messages)
        return out

    def note(self) -> Message | None:
        """The condensed note about old steps, or None while every step is kept in full."""
        if not self.condensed:
            return None
        if self._note is None:
            hidden = self.condensed - len(self.digests)
            lines = ([f"({hidden} earlier steps not shown)"] if hidden else []) + list(self.digests)
            text = "Earlier steps of this task, condensed (most recent last):\n" + "\n".join(lines)
            self._note = {"role": "user", "content": text}
        return self._note

    def estimate_tokens(self) -> int:
        """Estimated prompt tokens of ``messages()``, without re-reading every message."""
        note = self.note()
        return self._recent_tokens + (estimate_messages([note]) if note else 0)


def step_digest(step: int, calls: Sequence[tuple[str, str, str]], problem: str | None = None) -> str:
    """One line about a step: ``step 3: calculator({...}) → 42``."""
    if problem:
        return f"step {step}: reply not understood ({clip(problem, 120, one_line=True)})"
    parts = [
        f"{name}({clip(args, 80, one_line=True)}) → {clip(output, 120, one_line=True)}" for name, args, output in calls
    ]
    return f"step {step}: " + "; ".join(parts)


def rebuild_scratchpad(
    events: Iterable[Event],
    protocol: AgentProtocol,
    tools: Sequence[Tool] = (),
    keep_steps: int = 6,
    after: Mapping[int, Message] | None = None,
) -> tuple[Scratchpad, int]:
    """The scratchpad of one (interrupted) run from its events, and the number of its last complete step.

    ``after`` holds messages the loop added to a step's record (the answer request after repeated calls).
    """
    pad = Scratchpad(keep_steps)
    pending: ModelFinished | None = None
    results: list[ToolFinished] = []
    last_complete = 0

    def flush() -> None:
        nonlocal pending, results, last_complete
        if pending is None or pending.error or pending.final_answer is not None:
            pending, results = None, []
            return
        expected = {c["id"] for c in pending.tool_calls}
        if pending.format_error is None and {r.call_id for r in results} != expected:
            pending, results = None, []  # the step was cut short: it will be redone
            return
        record = record_for(protocol, pending, results, tools)
        if after and pending.step in after:
            record.messages.append(after[pending.step])
        pad.add(record)
        last_complete = pending.step
        pending, results = None, []

    for event in events:
        if isinstance(event, ModelFinished):
            flush()
            pending = event
        elif isinstance(event, ToolFinished) and pending is not None and event.step == pending.step:
            results.append(event)
    flush()
    return pad, last_complete


def record_for(
    protocol: AgentProtocol, finished: ModelFinished, results: Sequence[ToolFinished], tools: Sequence[Tool] = ()
) -> StepRecord:
    """The StepRecord of a step, from its ModelFinished and ToolFinished events (live and rebuilt alike)."""
    assistant = protocol.assistant_message(finished.text, finished.tool_calls)
    if finished.format_error:
        correction = protocol.correction_message(finished.format_error, tools)
        return StepRecord([assistant, correction], step_digest(finished.step, (), finished.format_error))
    triples = [(r.call_id, r.tool, r.output) for r in results]
    args = {c["id"]: c["arguments"] for c in finished.tool_calls}
    digest = step_digest(finished.step, [(r.tool, args.get(r.call_id, ""), r.output) for r in results])
    return StepRecord([assistant, *protocol.observation_messages(triples)], digest)
