"""Plugin tools run in child processes: a tool that loops forever is killed at its timeout, not left spinning.

A thread cannot be stopped from outside, so a plugin tool that never returns kept a thread and its CPU share for
the life of the app. ``IsolatedTool`` runs a plugin tool in one of a small pool of worker processes
(``SPARROW_PLUGIN_WORKERS``, 2 by default), started once and reused, so the start-up cost is paid once per
worker, not per call. Each worker loads the plugin the same way the app did (by module, file or entry point),
validates the arguments again and returns the ``ToolOutput``; an exception comes back with its type name and
message, so the events and errors read as before. A call still running at its time budget (the one the runner
gives it) is killed with its worker, and a fresh worker takes its place on the next call.
``SPARROW_PLUGIN_PROCESSES=0`` keeps plugins in the app's process (to debug one).
"""

from __future__ import annotations

import contextvars
import math
import multiprocessing
import threading
from collections.abc import Callable, Mapping
from multiprocessing.connection import Connection
from typing import Any

from pydantic_core import to_jsonable_python

from agent_core.env_settings import env_settings
from agent_core.tools.tool import Tool, ToolError, ToolOutput

CALL_BUDGET: contextvars.ContextVar[float | None] = contextvars.ContextVar("sparrow_call_budget", default=None)
"""Seconds the runner gives the call being started (an isolated call is killed once they are spent)."""
GRACE_S = 0.5
"""Beyond the budget, how long a worker may take to answer before it is killed (the runner has moved on)."""
Loader = tuple[str, ...]
"""How a worker finds the plugin: ``("module", spec)`` or ``("entry_point", group, name)``."""


def isolation_on(environ: Mapping[str, str] | None = None) -> bool:
    """False when ``SPARROW_PLUGIN_PROCESSES=0``: plugins then run in the app's own process."""
    return env_settings(environ).sparrow_plugin_processes


class IsolatedTool(Tool):
    """A plugin tool with the same name, schema and marks, whose calls run in a worker process."""

    def __init__(self, inner: Tool, loader: Loader, pool: WorkerPool) -> None:
        self.__dict__.update(vars(inner))  # the same name, description, schema, approval mark and timeout
        self.inner = inner
        self.loader = loader
        self.pool = pool
        self.inline = False

    def call_validated(self, kwargs: dict[str, Any]) -> ToolOutput:
        """Run the call in a worker, killed past the runner's budget; raises what the tool raised."""
        budget = CALL_BUDGET.get()
        limit = None if budget is None or math.isinf(budget) else budget
        return self.pool.call(self.loader, self.name, to_jsonable_python(kwargs), limit)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Call the plugin function directly in this process (notebooks, tests)."""
        return self.inner(*args, **kwargs)


class RemoteError(Exception):
    """Stands for an exception raised in a worker; shown as ``<its type name>: <message>`` like the original."""


class _Worker:
    """One child process and the parent's end of its pipe."""

    def __init__(self, target: Callable[[Connection], None]) -> None:
        context = multiprocessing.get_context("spawn")  # never fork a threaded app
        self.conn, child = context.Pipe()
        self.process = context.Process(target=target, args=(child,), name="sparrow-plugin", daemon=True)
        self.process.start()
        child.close()

    def kill(self) -> None:
        self.process.kill()
        self.process.join(5)
        self.conn.close()


class WorkerPool:
    """Up to ``size`` workers, each started on first need and reused; a call waits for a free one."""

    def __init__(self, size: int, target: Callable[[Connection], None]) -> None:
        self.size = size
        self.target = target
        """The worker's loop, run in each child (an importable function: children are spawned)."""
        self.idle: list[_Worker] = []
        self.started = 0
        self.lock = threading.Condition()

    def call(self, loader: Loader, name: str, arguments: dict[str, Any], budget: float | None) -> ToolOutput:
        """Run tool ``name`` of ``loader`` on a worker; kill the worker if no answer came within ``budget``."""
        worker = self._take()
        try:
            worker.conn.send((loader, name, arguments))
            if not worker.conn.poll(None if budget is None else budget + GRACE_S):
                worker.kill()
                worker = None
                raise TimeoutError(f"{name} was stopped: it ran past its time limit")
            kind, value = worker.conn.recv()
        except (EOFError, OSError, BrokenPipeError):
            if worker is not None:
                worker.kill()
            worker = None
            raise RemoteError(f"the plugin process running {name} ended without an answer") from None
        finally:
            self._give(worker)
        return _outcome(kind, value)

    def close(self) -> None:
        """Stop the idle workers (a busy one goes back to the pool; every worker is a daemon, ended at exit)."""
        with self.lock:
            idle, self.idle = self.idle, []
            self.started -= len(idle)
        for worker in idle:
            worker.kill()

    def pids(self) -> list[int]:
        """Process ids of the idle workers (for tests and the curious)."""
        with self.lock:
            return [w.process.pid for w in self.idle if w.process.pid is not None]

    def _take(self) -> _Worker:
        with self.lock:
            while not self.idle and self.started >= self.size:
                self.lock.wait()
            if self.idle:
                return self.idle.pop()
            self.started += 1
        try:
            return _Worker(self.target)
        except BaseException:
            self._give(None)
            raise

    def _give(self, worker: _Worker | None) -> None:
        with self.lock:
            if worker is None:
                self.started -= 1  # killed or never started: a fresh one takes its place when needed
            else:
                self.idle.append(worker)
            self.lock.notify()


def _outcome(kind: str, value: Any) -> ToolOutput:
    if kind == "ok":
        content, details = value
        return ToolOutput(content, details)
    error_type, message = value
    if kind == "tool_error":
        raise ToolError(message)
    raise type(error_type, (RemoteError,), {})(message)  # "calc raised ValueError: ..." reads as it did
