"""A readable live trace of events for terminals (the CLI prints it to stderr)."""

from __future__ import annotations

import json
from typing import Protocol, assert_never

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
)
from agent_core.formatting import format_duration, plural
from agent_core.views.metrics import answer_request_line, repeat_line


class TextOut(Protocol):
    """Where the trace goes: a text stream, or a writer that hides secrets on the way."""

    def write(self, text: str, /) -> int:
        """Write ``text``."""
        ...

    def flush(self) -> None:
        """Send what was written."""
        ...


class TracePrinter:
    """Writes thoughts as they stream, then actions, observations and a summary line."""

    def __init__(self, out: TextOut, *, color: bool = False) -> None:
        self.out = out
        self.color = color
        self._mid_line = False

    def __call__(self, event: Event) -> None:
        """Print one event."""
        if isinstance(event, ModelDelta):
            self._write(self._dim(event.text) if event.channel == "reasoning" else event.text)
            self._mid_line = not event.text.endswith("\n")
            return
        self._end_line()
        line = self._line(event)
        if line:
            self._write(line + "\n")

    def _line(self, event: Event) -> str | None:
        """The line for ``event``; every event type is handled here or said to print nothing."""
        match event:
            case RunStarted():
                return self._bold(f"▶ {event.question}") + self._dim(f"  [{event.model} · {event.protocol}]")
            case RunResumed():
                return self._bold(f"↻ resumed at step {event.from_step}")
            case StepStarted():
                return self._dim(f"── step {event.step}")
            case ModelFinished():
                return self._model_line(event)
            case ToolStarted():
                return f"→ {event.tool}({json.dumps(event.arguments, ensure_ascii=False)})"
            case ToolFinished():
                return self._tool_line(event)
            case ApprovalDecided():
                verdict = "approved" if event.approved else "denied"
                return self._dim(f"  {event.tool}: {verdict}{' by --yes' if event.by == 'policy' else ''}")
            case OutputFlagged():
                found = ", ".join(str(f.get("label", "")) for f in event.findings)
                return self._red(f"⚠ masked in the {event.source.replace('_', ' ')}: {found}")
            case CallRepeated():
                return self._yellow(repeat_line(event))
            case AnswerRequested():
                return self._yellow(answer_request_line(event))
            case RunFinished():
                return self._summary(event)
            case RunForked():
                return self._bold(f"⑂ forked from {event.from_run} at step {event.at_step}")
            case ModelSampled():
                return self._dim(f"  sample {event.index + 1} of step {event.step}")
            case ModelDelta() | ApprovalRequested() | FinalAnswer():
                return None  # deltas stream as they come; the CLI asks for approval and prints the answer itself
            case _:
                assert_never(event)

    def _tool_line(self, event: ToolFinished) -> str:
        mark = "✗" if event.error else ("↺" if event.reused_from else "←")
        text = event.output if len(event.output) <= 600 else event.output[:600] + "…"
        line = f"{mark} {text}  " + self._dim(f"({format_duration(event.duration_ms)})")
        return self._red(line) if event.error else line

    def _model_line(self, event: ModelFinished) -> str | None:
        usage = event.usage
        tokens = f"{usage.prompt_tokens}+{usage.completion_tokens} tokens{' (est.)' if usage.estimated else ''}"
        retried = f" · retried after {', '.join(event.retried_after)}" if event.retried_after else ""
        stats = self._dim(f"   [{format_duration(event.latency_ms)} · {tokens}{retried}]")
        if event.error:
            return self._red(f"✗ model error: {event.error}") + stats
        if event.format_error:
            return self._red(f"✗ format problem: {event.format_error}; asking the model to retry") + stats
        return stats

    def _summary(self, event: RunFinished) -> str:
        usage = event.usage
        mark = "✓" if event.status == "completed" else "✗"
        text = (
            f"{mark} {event.status} · {plural(event.steps, 'step')} · {plural(event.tool_calls, 'tool call')} · "
            f"{usage.total_tokens:,} tokens{' (est.)' if usage.estimated else ''} · "
            f"{format_duration(event.duration_ms)}"
        )
        if event.error:
            text += f"\n  {event.error}"
        return self._bold(text) if event.status == "completed" else self._red(text)

    def _end_line(self) -> None:
        if self._mid_line:
            self._write("\n")
            self._mid_line = False

    def _write(self, text: str) -> None:
        self.out.write(text)
        self.out.flush()

    def _dim(self, text: str) -> str:
        return f"\033[2m{text}\033[0m" if self.color else text

    def _bold(self, text: str) -> str:
        return f"\033[1m{text}\033[0m" if self.color else text

    def _yellow(self, text: str) -> str:
        return f"\033[33m{text}\033[0m" if self.color else text

    def _red(self, text: str) -> str:
        return f"\033[31m{text}\033[0m" if self.color else text
