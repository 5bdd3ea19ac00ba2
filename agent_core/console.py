"""A readable live trace of events for terminals (the CLI prints it to stderr)."""

from __future__ import annotations

import json
from typing import TextIO

from agent_core.events import (
    ApprovalDecided,
    Event,
    ModelDelta,
    ModelFinished,
    OutputFlagged,
    RunFinished,
    RunResumed,
    RunStarted,
    StepStarted,
    ToolFinished,
    ToolStarted,
)
from agent_core.formatting import plural


class TracePrinter:
    """Writes thoughts as they stream, then actions, observations and a summary line."""

    def __init__(self, out: TextIO, *, color: bool = False) -> None:
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
        if isinstance(event, RunStarted):
            return self._bold(f"▶ {event.question}") + self._dim(f"  [{event.model} · {event.protocol}]")
        if isinstance(event, RunResumed):
            return self._bold(f"↻ resumed at step {event.from_step}")
        if isinstance(event, StepStarted):
            return self._dim(f"── step {event.step}")
        if isinstance(event, ModelFinished):
            return self._model_line(event)
        if isinstance(event, ToolStarted):
            return f"→ {event.tool}({json.dumps(event.arguments, ensure_ascii=False)})"
        if isinstance(event, ToolFinished):
            mark = "✗" if event.error else "←"
            text = event.output if len(event.output) <= 600 else event.output[:600] + "…"
            line = f"{mark} {text}  " + self._dim(f"({event.duration_ms:.0f} ms)")
            return self._red(line) if event.error else line
        if isinstance(event, ApprovalDecided):
            verdict = "approved" if event.approved else "denied"
            return self._dim(f"  {event.tool}: {verdict}{' by --yes' if event.by == 'policy' else ''}")
        if isinstance(event, OutputFlagged):
            found = ", ".join(str(f.get("label", "")) for f in event.findings)
            return self._red(f"⚠ masked in the {event.source.replace('_', ' ')}: {found}")
        if isinstance(event, RunFinished):
            return self._summary(event)
        return None

    def _model_line(self, event: ModelFinished) -> str | None:
        usage = event.usage
        tokens = f"{usage.prompt_tokens}+{usage.completion_tokens} tokens{' (est.)' if usage.estimated else ''}"
        stats = self._dim(f"   [{event.latency_ms / 1000:.2f} s · {tokens}]")
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
            f"{usage.total_tokens:,} tokens{' (est.)' if usage.estimated else ''} · {event.duration_ms / 1000:.2f} s"
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

    def _red(self, text: str) -> str:
        return f"\033[31m{text}\033[0m" if self.color else text
