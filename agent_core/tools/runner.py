"""Runs tool calls: validation first, then each call in its own thread with a timeout, results in order."""

from __future__ import annotations

import contextvars
import math
import queue
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from agent_core.guards.limits import CancelToken, Deadline
from agent_core.tools.tool import Tool, ToolArgumentsError, ToolError, ToolOutput, ToolSet

_POLL_S = 0.05
"""How often a waiting run looks at its cancel token."""
CALL_BUDGET: contextvars.ContextVar[float | None] = contextvars.ContextVar("sparrow_call_budget", default=None)
"""Seconds the runner gives the call being started (a plugin call in a worker process is killed once they are spent)."""


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
        """Run ``calls`` concurrently and return every result, in call order."""
        return list(self.run_each(calls, cancel=cancel, deadline=deadline))

    def run_each(
        self, calls: Sequence[CallRequest], *, cancel: CancelToken | None = None, deadline: Deadline | None = None
    ) -> Iterator[CallResult]:
        """Start every call at once, then yield results in call order as each is ready.

        Calls still running when ``cancel`` fires end as cancelled; a call past its timeout is abandoned.
        """
        started: list[tuple[Tool, _Box] | CallResult] = []
        for call in calls:
            prepared = self._prepare(call)
            if isinstance(prepared, CallResult):
                started.append(prepared)
            elif prepared[0].inline:
                started.append(self._inline(*prepared, self._budget(prepared[0], deadline)))
            else:
                token = CALL_BUDGET.set(self._budget(prepared[0], deadline))  # a plugin worker is killed past it
                try:
                    started.append((prepared[0], _WORKERS.submit(*prepared)))
                finally:
                    CALL_BUDGET.reset(token)
        for item in started:
            yield item if isinstance(item, CallResult) else self._collect(item[0], item[1], cancel, deadline)

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
        box: _Box,
        cancel: CancelToken | None,
        deadline: Deadline | None,
    ) -> CallResult:
        budget = self._budget(tool, deadline)
        waited_from = time.monotonic()
        while True:
            if cancel is not None and cancel.cancelled:
                message = f"cancelled while {tool.name} was running"
                return CallResult(
                    f"Error: {message}", error=message, duration_ms=(time.monotonic() - waited_from) * 1000
                )
            left = budget - (time.monotonic() - waited_from)
            if left <= 0:
                return _timed_out(tool, budget)
            try:
                output, exc, duration = box.get(timeout=min(_POLL_S, left))
                break
            except queue.Empty:
                continue
        if exc is not None:
            return self._failure(tool, exc, duration)
        assert output is not None
        return self._success(output, duration)

    def _budget(self, tool: Tool, deadline: Deadline | None) -> float:
        """The tool's own timeout (or the runner's), capped by the time the run has left."""
        limit = tool.timeout if tool.timeout is not None else self.timeout
        budget = limit if deadline is None else deadline.cap(limit)
        return math.inf if budget is None else budget

    def _inline(self, tool: Tool, kwargs: dict[str, Any], budget: float) -> CallResult:
        """Run a bounded built-in tool right here (no thread hop); the same timeout rules apply."""
        if budget <= 0:
            return _timed_out(tool, budget)
        begin = time.perf_counter()
        try:
            output = tool.call_validated(kwargs)
        except Exception as exc:
            return self._failure(tool, exc, (time.perf_counter() - begin) * 1000)
        duration = time.perf_counter() - begin
        return _timed_out(tool, budget) if duration > budget else self._success(output, duration * 1000)

    def _success(self, output: ToolOutput, duration: float) -> CallResult:
        text, truncated = truncate(output.content, self.max_output_chars)
        return CallResult(text, output.details, None, duration, truncated)

    def _failure(self, tool: Tool, exc: BaseException, duration: float) -> CallResult:
        message = str(exc) if isinstance(exc, ToolError) else f"{tool.name} raised {type(exc).__name__}: {exc}"
        text, _ = truncate(f"Error: {message}", self.max_output_chars)
        return CallResult(text, None, message, duration)


_Outcome = tuple[ToolOutput | None, BaseException | None, float]
_Box = queue.SimpleQueue  # one per call; the worker puts the single _Outcome in it (cheaper than a Future)


class _DaemonWorkers:
    """Reusable daemon threads for tool calls.

    A hung tool only costs its own thread: when no worker is idle a new one starts, and daemon
    threads never block interpreter exit (``ThreadPoolExecutor`` joins its workers at exit).
    """

    def __init__(self, max_idle: int = 16) -> None:
        self._jobs: queue.SimpleQueue[tuple[contextvars.Context, Tool, dict[str, Any], _Box]] = queue.SimpleQueue()
        self._idle = 0
        self._max_idle = max_idle
        self._lock = threading.Lock()

    def submit(self, tool: Tool, kwargs: dict[str, Any]) -> _Box:
        """Run ``tool`` with ``kwargs`` on an idle worker (or a new one)."""
        box: _Box = queue.SimpleQueue()
        with self._lock:
            spawn = self._idle == 0
            if not spawn:
                self._idle -= 1
        self._jobs.put((contextvars.copy_context(), tool, kwargs, box))  # the caller's context vars reach the tool
        if spawn:
            threading.Thread(target=self._work, name="sparrow-tool", daemon=True).start()
        return box

    def _work(self) -> None:
        while True:
            context, tool, kwargs, box = self._jobs.get()
            begin = time.perf_counter()
            try:
                output = context.run(tool.call_validated, kwargs)
                box.put((output, None, (time.perf_counter() - begin) * 1000))
            except BaseException as exc:
                box.put((None, exc, (time.perf_counter() - begin) * 1000))
            with self._lock:
                if self._idle >= self._max_idle:
                    return
                self._idle += 1


_WORKERS = _DaemonWorkers()


def _timed_out(tool: Tool, budget: float) -> CallResult:
    message = f"{tool.name} timed out after {budget:.3g} s"
    return CallResult(f"Error: {message}; try something else.", error=message, duration_ms=budget * 1000)


def truncate(text: str, limit: int) -> tuple[str, bool]:
    """Cut ``text`` to ``limit`` characters with a note saying how much was left out."""
    if limit <= 0 or len(text) <= limit:
        return text, False
    return f"{text[:limit]}\n[truncated: {len(text) - limit:,} more characters not shown]", True


def _signature(tool: Tool) -> str:
    props = tool.parameters.get("properties", {})
    required = set(tool.parameters.get("required", []))
    parts = [f"{n}{'' if n in required else '?'}: {_type_name(p)}" for n, p in props.items()]
    return "{" + ", ".join(parts) + "}"


def _type_name(prop: dict[str, Any]) -> str:
    if "type" in prop:
        return str(prop["type"])
    options = [str(option.get("type", "any")) for option in prop.get("anyOf", [])]
    return "|".join(options) or "any"
