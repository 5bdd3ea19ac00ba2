"""One asyncio event loop in a daemon thread, so Sparrow's synchronous tools can drive the async MCP SDK.

The loop owns every MCP session of the process: sessions are opened, used and closed on it (the SDK's task
groups must start and end in one task), and tool calls from the agent's worker threads are handed to it.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


class LoopThread:
    """A lazily started event loop on a daemon thread; ``run(coro, timeout)`` from any other thread."""

    def __init__(self, name: str = "sparrow-mcp") -> None:
        self.name = name
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        """The running loop (started on first use)."""
        with self._lock:
            if self._loop is None or self._thread is None or not self._thread.is_alive():
                self._start()
            assert self._loop is not None
            return self._loop

    def _start(self) -> None:
        loop = asyncio.new_event_loop()
        ready = threading.Event()

        def serve() -> None:
            asyncio.set_event_loop(loop)
            loop.call_soon(ready.set)
            loop.run_forever()

        self._thread = threading.Thread(target=serve, name=self.name, daemon=True)
        self._thread.start()
        ready.wait()
        self._loop = loop

    def submit(self, coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        """Schedule ``coro`` on the loop; the future can be waited on (and cancelled) from this thread."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop)

    def run(self, coro: Coroutine[Any, Any, T], timeout: float) -> T:
        """Run ``coro`` on the loop and wait at most ``timeout`` seconds (then cancel it; TimeoutError)."""
        future = self.submit(coro)
        try:
            return future.result(timeout)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise TimeoutError(f"no answer within {timeout:g} s") from None

    @property
    def running(self) -> bool:
        """True while the loop thread is alive."""
        return self._thread is not None and self._thread.is_alive()

    def stop(self, timeout: float = 2.0) -> None:
        """Stop the loop and wait for its thread (pending work should be finished first)."""
        with self._lock:
            loop, thread = self._loop, self._thread
            self._loop = self._thread = None
        if loop is None or thread is None:
            return
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout)
        if not thread.is_alive():
            loop.close()
