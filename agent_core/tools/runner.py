"""Runs tool calls: validation first, then each call in its own thread with a timeout, results in order."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from typing import Any

from agent_core.guards import CancelToken, Deadline
from agent_core.tools.base import Tool, ToolArgumentsError, ToolError, ToolOutput, ToolSet

_POLL_S = 0.05
"""How often a waiting run looks at its cancel token."""


@dataclass(frozen=True)
class CallRequest:
    """One tool call as the protocol understood it."""

    call_id: str
    name: str
    arguments: dict[str, Any]
    problem: str | None = None
    """Set when the arguments could not even be parsed; the call then fails with this message."""


@dataclass(frozen=True)
class CallResult:
    """The outcome of one call, ready to become a ToolFinished event."""

    output: str
    details: Any = None
    error: str | None = None
    duration_ms: float = 0.0
    truncated: bool = False


class ToolRunner:
    """Executes a step's tool calls concurrently, each under its own timeout, and returns them in order."""

    def __init__(self, tools: ToolSet, *, timeout: float = 30.0, max_output_chars: int = 2000) -> None:
        self.tools = tools
        self.timeout = timeout
        self.max_output_chars = max_output_chars

    def run(
        self, calls: Sequence[CallRequest], *, cancel: CancelToken | None = None, deadline: Deadline | None = None
    ) -> list[CallResult]:
        """Run ``calls`` concurrently; calls still running when ``cancel`` fires end as cancelled."""
        started: list[tuple[Tool, Future[tuple[ToolOutput | None, BaseException | None, float]]] | CallResult] = []
        for call in calls:
            prepared = self._prepare(call)
            started.append(prepared if isinstance(prepared, CallResult) else (prepared[0], _spawn(*prepared)))
        return [
            item if isinstance(item, CallResult) else self._collect(item[0], item[1], cancel, deadline)
            for item in started
        ]

    def _prepare(self, call: CallRequest) -> tuple[Tool, dict[str, Any]] | CallResult:
        tool = self.tools.get(call.name)
        if tool is None:
            valid = ", ".join(self.tools.names) or "(none)"
            return CallResult(f"Error: unknown tool {call.name!r}. Valid tools: {valid}.", error="unknown tool")
        if call.problem:
            return CallResult(f"Error: {call.problem}", error=call.problem)
        try:
            return tool, tool.validate(call.arguments)
        except ToolArgumentsError as exc:
            hint = f" Expected parameters: {_signature(tool)}."
            return CallResult(f"Error: {exc}.{hint}", error=str(exc))

    def _collect(
        self,
        tool: Tool,
        future: Future[tuple[ToolOutput | None, BaseException | None, float]],
        cancel: CancelToken | None,
        deadline: Deadline | None,
    ) -> CallResult:
        limit = tool.timeout if tool.timeout is not None else self.timeout
        budget = deadline.cap(limit) if deadline is not None else limit
        waited_from = time.monotonic()
        while True:
            if cancel is not None and cancel.cancelled:
                message = f"cancelled while {tool.name} was running"
                return CallResult(
                    f"Error: {message}", error=message, duration_ms=(time.monotonic() - waited_from) * 1000
                )
            left = budget - (time.monotonic() - waited_from)
            if left <= 0:
                message = f"{tool.name} timed out after {budget:.3g} s"
                return CallResult(f"Error: {message}; try something else.", error=message, duration_ms=budget * 1000)
            try:
                output, exc, duration = future.result(timeout=min(_POLL_S, left))
                break
            except FutureTimeout:
                continue
        if exc is not None:
            return self._failure(tool, exc, duration)
        assert output is not None
        return self._success(output, duration)

    def _success(self, output: ToolOutput, duration: float) -> CallResult:
        text, truncated = truncate(output.content, self.max_output_chars)
        return CallResult(text, output.details, None, duration, truncated)

    def _failure(self, tool: Tool, exc: BaseException, duration: float) -> CallResult:
        message = str(exc) if isinstance(exc, ToolError) else f"{tool.name} raised {type(exc).__name__}: {exc}"
        text, _ = truncate(f"Error: {message}", self.max_output_chars)
        return CallResult(text, None, message, duration)


def _spawn(tool: Tool, kwargs: dict[str, Any]) -> Future[tuple[ToolOutput | None, BaseException | None, float]]:
    # A daemon thread per call: a hung tool can be abandoned without blocking interpreter exit.
    future: Future[tuple[ToolOutput | None, BaseException | None, float]] = Future()

    def work() -> None:
        begin = time.perf_counter()
        try:
            output = tool.call_validated(kwargs)
            future.set_result((output, None, (time.perf_counter() - begin) * 1000))
        except BaseException as exc:
            future.set_result((None, exc, (time.perf_counter() - begin) * 1000))

    threading.Thread(target=work, name=f"tool-{tool.name}", daemon=True).start()
    return future


def truncate(text: str, limit: int) -> tuple[str, bool]:
    """Cut ``text`` to ``limit`` characters with a note saying how much was left out."""
    if limit <= 0 or len(text) <= limit:
        return text, False
    return f"{text[:limit]}\n[truncated: {len(text) - limit:,} more characters not shown]", True


def _signature(tool: Tool) -> str:
    props = tool.parameters.get("properties", {})
    required = set(tool.parameters.get("required", []))
    parts = [f"{n}{'' if n in required else '?'}: {p.get('type', 'any')}" for n, p in props.items()]
    return "{" + ", ".join(parts) + "}"
