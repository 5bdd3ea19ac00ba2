"""One MCP server's live session: started on first need, kept open for later runs, restarted after it stops.

The async MCP SDK runs on one asyncio event loop in a daemon thread (``LoopThread``), which owns every MCP session
of the process: sessions are opened, used and closed on it (the SDK's task groups must start and end in one task),
and tool calls from the agent's worker threads are handed to it. ``ServerConnection``'s public methods are
synchronous and bounded by the server's ``startupTimeout`` and ``timeout``, so a server that fails, crashes or hangs
never blocks a run; a failure is one sentence, quoting the server's last line on stderr when it wrote one.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import tempfile
import threading
import time
from collections.abc import Coroutine
from contextlib import AsyncExitStack, suppress
from typing import Any, TextIO, TypeVar

import httpx2
import mcp_types as types
from mcp import Client, StdioServerParameters, stdio_client
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from agent_core.tools.mcp.config import FAILED, NOT_STARTED, RUNNING, STARTING, STOPPED, ServerConfig, ServerStatus

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


CLOSE_TIMEOUT = 8.0
"""Seconds to let a server shut down (the SDK closes stdin, then terminates, then kills, each bounded)."""
GRACE = 2.0
"""Extra seconds the waiting thread allows beyond a timeout the loop enforces itself."""
MAX_PAGES = 50
"""Pages of ``tools/list`` read at most (a server that paginates forever cannot hang a start)."""


class McpServerError(Exception):
    """A server could not start, stopped during a call, or did not answer in time; one sentence."""


class ServerConnection:
    """A configured server and, once started, its open session."""

    def __init__(self, name: str, config: ServerConfig, loop: LoopThread) -> None:
        self.name, self.config, self._loop = name, config, loop
        self.state, self.problem = NOT_STARTED, None
        self.tools: tuple[types.Tool, ...] = ()
        """The server's tools as it listed them at its last start."""
        self.start_ms: float | None = None
        self.starts = 0
        """How many times the server was started (1 while it has never stopped)."""
        self.retired = False
        """True once a newer configuration replaced this one: it never starts again."""
        self._client: Client | None = None
        self._stop: asyncio.Event | None = None
        self._keeper: asyncio.Task[None] | None = None
        self._errlog: TextIO | None = None
        self._http_status: int | None = None
        self._lock = threading.Lock()
        self.tool_names: dict[str, str] = {}
        """Sparrow name -> server name, filled in by whoever builds the tools."""

    def status(self) -> ServerStatus:
        """Where the server stands now."""
        return ServerStatus(
            self.name,
            self.config.transport,
            self.config.target,
            self.state,
            self.config.trust,
            tuple(self.tool_names.items()),
            self.problem,
            self.start_ms,
        )

    def start(self) -> None:
        """Start the server and list its tools unless it is running; McpServerError saying why it cannot."""
        with self._lock:
            if self.state == RUNNING:
                return
            if self.retired:
                raise McpServerError(f"MCP server {self.name!r} was reconfigured; rebuild the tool catalogue")
            self.state, self.problem = STARTING, None
            try:
                self._loop.run(self._start(), self.config.startup_timeout + CLOSE_TIMEOUT + GRACE)
            except TimeoutError:
                self._failed(f"did not start within {self.config.startup_timeout:g} s")
            except McpServerError as exc:
                self._failed(str(exc))

    def _failed(self, why: str) -> None:
        self.state, self.problem = FAILED, why
        raise McpServerError(f"MCP server {self.name!r} failed to start: {why}")

    def call(self, tool: str, arguments: dict[str, Any]) -> types.CallToolResult:
        """Call ``tool`` (restarting the server first if it stopped); McpServerError on any failure to answer."""
        try:
            self.start()
        except McpServerError as exc:
            raise McpServerError(f"{exc}; {tool} was not called") from None
        future = self._loop.submit(self._call(tool, arguments))
        try:
            return future.result(self.config.timeout + GRACE)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise McpServerError(self._timeout_message(tool)) from None

    def close(self) -> None:
        """Stop the server (if running) and wait for it to exit, at most CLOSE_TIMEOUT seconds."""
        with self._lock, suppress(TimeoutError):
            self._loop.run(self.aclose(), CLOSE_TIMEOUT + GRACE)

    async def aclose(self) -> None:
        """Stop the server from the loop thread (used to close every server at once at exit)."""
        if self._keeper is not None:
            await self._halt()
            self.state = STOPPED if self.state == RUNNING else self.state
        if self._errlog is not None:
            self._errlog.close()
            self._errlog = None

    async def _start(self) -> None:
        began, self.starts = time.perf_counter(), self.starts + 1
        ready: asyncio.Future[tuple[types.Tool, ...]] = asyncio.get_running_loop().create_future()
        self._stop = asyncio.Event()
        self._keeper = asyncio.create_task(self._keep(ready))
        try:
            tools = await asyncio.wait_for(asyncio.shield(ready), self.config.startup_timeout)
        except TimeoutError:
            await self._halt()
            raise McpServerError(f"did not start within {self.config.startup_timeout:g} s") from None
        except Exception as exc:
            await self._halt()
            raise McpServerError(self._explain(exc)) from None
        self.tools, self.start_ms = tools, (time.perf_counter() - began) * 1000
        self.state = RUNNING

    async def _keep(self, ready: asyncio.Future[tuple[types.Tool, ...]]) -> None:
        """Own the session from open to close, in this one task, as the SDK requires."""
        try:
            async with AsyncExitStack() as stack:
                client = await stack.enter_async_context(await self._open(stack))
                tools = await _list_tools(client)
                self._client = client
                ready.set_result(tools)
                assert self._stop is not None
                await self._stop.wait()
        except BaseException as exc:  # a failed start, or the session breaking while idle
            if not ready.done():
                ready.set_exception(exc if isinstance(exc, Exception) else McpServerError("start was cancelled"))
            elif self.state == RUNNING and not isinstance(exc, asyncio.CancelledError):
                self.state = STOPPED
                self.problem = f"its session ended ({self._explain(exc)}); it restarts on the next call"
        finally:
            self._client = None

    async def _open(self, stack: AsyncExitStack) -> Client:
        config = self.config
        if config.command:
            params = StdioServerParameters(
                command=config.command, args=list(config.args), env=config.env or None, cwd=config.cwd
            )
            return Client(stdio_client(params, errlog=self._fresh_errlog()), read_timeout_seconds=config.timeout)
        self._http_status = None
        http = await stack.enter_async_context(
            httpx2.AsyncClient(
                headers=config.headers,
                timeout=httpx2.Timeout(config.timeout, read=300.0),
                event_hooks={"response": [self._note_status]},
            )
        )
        if config.transport == "sse":
            transport = sse_client(str(config.url), headers=config.headers, timeout=config.timeout)
            return Client(transport, read_timeout_seconds=config.timeout)
        return Client(streamable_http_client(str(config.url), http_client=http), read_timeout_seconds=config.timeout)

    async def _note_status(self, response: httpx2.Response) -> None:
        """Remember an HTTP error status: the SDK reports it only as "Server returned an error response"."""
        if response.status_code >= 400:
            self._http_status = response.status_code

    async def _call(self, tool: str, arguments: dict[str, Any]) -> types.CallToolResult:
        client = self._client
        if client is None:
            raise McpServerError(f"MCP server {self.name!r} is not connected; {tool} was not called")
        try:
            return await asyncio.wait_for(client.call_tool(tool, arguments), self.config.timeout)
        except TimeoutError:
            raise McpServerError(self._timeout_message(tool)) from None
        except MCPError as exc:
            if exc.code == types.REQUEST_TIMEOUT:
                raise McpServerError(self._timeout_message(tool)) from None
            if exc.code != types.CONNECTION_CLOSED:
                raise McpServerError(f"MCP server {self.name!r} refused the call to {tool}: {exc.message}") from None
            raise McpServerError(await self._lost(f"during the call to {tool}")) from None
        except Exception as exc:  # transport failures (HTTP errors, broken pipes…)
            raise McpServerError(await self._lost(f"during the call to {tool}: {self._explain(exc)}")) from None

    async def _lost(self, when: str) -> str:
        """Mark the server stopped, close what is left of the session, and say so in one sentence."""
        detail = self._stderr_tail()
        detail = "" if detail in when else detail
        self.state = STOPPED
        self.problem = f"{when}{f' (its last words: {detail})' if detail else ''}; it restarts on the next call"
        await self._halt()
        return f"MCP server {self.name!r} stopped {self.problem}"

    async def _halt(self) -> None:
        keeper, self._keeper = self._keeper, None
        if self._stop is not None:
            self._stop.set()
        if keeper is None:
            return
        if self._client is None:  # still starting: nothing listens to the stop event yet
            keeper.cancel()
        try:
            await asyncio.wait_for(keeper, CLOSE_TIMEOUT)
        except (TimeoutError, asyncio.CancelledError):
            keeper.cancel()

    def _timeout_message(self, tool: str) -> str:
        timeout = self.config.timeout
        return f"MCP server {self.name!r} did not answer {tool} within {timeout:g} s; the call was cancelled"

    def _explain(self, exc: BaseException) -> str:
        leaf = _first_leaf(exc)
        if isinstance(leaf, FileNotFoundError):
            text = f"command not found: {self.config.command!r}"
        elif isinstance(leaf, PermissionError):
            text = f"cannot run {self.config.command!r}: permission denied"
        elif isinstance(leaf, MCPError):
            text = leaf.message
        elif isinstance(leaf, httpx2.HTTPError):
            text = f"cannot reach {self.config.url}: {type(leaf).__name__}: {leaf}"
        else:
            text = f"{type(leaf).__name__}: {leaf}" if str(leaf) else type(leaf).__name__
        if self._http_status is not None:
            text = f"{text} (HTTP {self._http_status})"
        tail = self._stderr_tail()
        return f"{text} (its last words: {tail})" if tail else text

    def _fresh_errlog(self) -> TextIO:
        """A new file for the server's stderr (kept after it exits, so a failure can quote its last words)."""
        if self._errlog is not None:
            self._errlog.close()
        self._errlog = tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")  # noqa: SIM115 (kept open)
        return self._errlog

    def _stderr_tail(self, limit: int = 300) -> str:
        """The last line the server wrote to stderr, if any."""
        log = self._errlog
        if log is None or log.closed:
            return ""
        try:
            log.flush()
            log.seek(max(0, log.seek(0, 2) - 8000))  # only the end: a chatty server's log can be long
            lines = [line.strip() for line in log.read().splitlines() if line.strip()]
        except (OSError, ValueError):
            return ""
        return lines[-1][:limit] if lines else ""


def _first_leaf(exc: BaseException) -> BaseException:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


async def _list_tools(client: Client) -> tuple[types.Tool, ...]:
    found: list[types.Tool] = []
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        page = await client.list_tools(cursor=cursor)
        found.extend(page.tools)
        cursor = page.next_cursor
        if not cursor:
            break
    return tuple(found)
