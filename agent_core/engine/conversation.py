"""The conversation so far: the earlier turns of a session, recent ones in full and older ones summarised.

A new run's context starts with them (after the system prompt, before the question). They are read off the
session's fold (``finished_turns`` of its RunStates), which is how a loaded, imported or resumed session gets its
conversation back; the run's own steps are in its RunState (``agent_core.engine.state``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from agent_core.engine.state import RunState
from agent_core.formatting import clip
from agent_core.models.chat import ChatModel, Message, ModelRequest, complete, estimate_tokens


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


def finished_turns(runs: Iterable[RunState]) -> list[Turn]:
    """The finished exchanges among ``runs`` (a session's runs, in the order they started), as a memory holds them."""
    return [Turn(run.question, run.answer, run.status) for run in runs if run.status is not None and run.run_started]
