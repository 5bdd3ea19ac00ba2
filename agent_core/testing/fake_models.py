"""In-process fake models for tests and benchmarks: a scripted queue of replies and a function-driven model.

These are test doubles. They are never offered to users as if they were an agent.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from agent_core.events import Usage
from agent_core.models.chat import Completion, Message, ModelError, ModelOutput, ModelRequest, TextChunk, ToolCall

_CHUNK_RE = re.compile(r"\S+\s*|\s+")


@dataclass(frozen=True)
class Reply:
    """One scripted model reply (used by the in-process fakes and the fake HTTP server alike)."""

    text: str = ""
    tool_calls: tuple[tuple[str, dict[str, Any] | str], ...] = ()
    """``(tool name, arguments)`` pairs; a str is sent as raw (possibly invalid) JSON."""
    reasoning: str = ""
    usage: tuple[int, int] | None = None
    """Explicit (prompt, completion) tokens; None lets the fake decide (in-process: none sent)."""
    omit_usage: bool = False
    """Fake server only: send no usage chunk even when the client asks for one."""
    delay: float = 0.0
    """Seconds before the first byte."""
    chunk_delay: float = 0.0
    """Seconds between streamed chunks."""
    status: int | None = None
    """Fake server only: answer with this HTTP error status instead."""
    stall: bool = False
    """Fake server only: send the first chunk, then hang (a stalled server)."""
    error: ModelError | None = None
    """In-process only: raise this instead of replying."""
    endless: bool = False
    """Fake server only: after the text, keep streaming more text until the client goes away."""
    no_done: bool = False
    """Fake server only: send every chunk (finish_reason and usage too), then hang without ``[DONE]``."""
    raw_body: str | None = None
    """Fake server only: answer 200 with this body as is (an HTML page, JSON that is not a completion...)."""
    content_type: str = "text/html; charset=utf-8"
    """Fake server only: the Content-Type sent with ``raw_body``."""
    bad_chunk: str | None = None
    """Fake server only: streamed as ``data: <bad_chunk>`` after the first chunk (e.g. invalid JSON)."""
    empty_choices: bool = False
    """Fake server only: stream every chunk with ``choices: []`` (the reply's text never arrives)."""
    drop_after: int | None = None
    """Fake server only: close the connection after this many chunks (no finish reason, no ``[DONE]``)."""
    usage_details: dict[str, Any] | None = None
    """Fake server only: more usage fields, sent as given (``prompt_tokens_details``, ``prompt_cache_hit_tokens``)."""

    @classmethod
    def call(cls, name: str, text: str = "", **arguments: Any) -> Reply:
        """A reply with one native tool call."""
        return cls(text=text, tool_calls=((name, arguments),))

    def calls(self) -> tuple[ToolCall, ...]:
        """The tool calls as ToolCall objects with stable ids."""
        return tuple(
            ToolCall(f"call_{i + 1}", name, args if isinstance(args, str) else json.dumps(args))
            for i, (name, args) in enumerate(self.tool_calls)
        )


ReplyLike = str | Reply | ModelError


def as_reply(item: ReplyLike) -> Reply:
    """Normalise a script item."""
    if isinstance(item, Reply):
        return item
    if isinstance(item, ModelError):
        return Reply(error=item)
    return Reply(text=item)


def split_chunks(text: str) -> list[str]:
    """Split text the way a streaming model sends it: a word (with its trailing space) per chunk."""
    return _CHUNK_RE.findall(text)


class _FakeModel:
    """Shared streaming behaviour of the in-process fakes."""

    def __init__(self, name: str, honor_stop: bool, stream_chunks: bool, keep_requests: int | None) -> None:
        self.name = name
        self.honor_stop = honor_stop
        self.stream_chunks = stream_chunks
        self.requests: deque[ModelRequest] = deque(maxlen=keep_requests)
        """Requests received, newest last (only the last ``keep_requests`` when that is set)."""
        self._lock = threading.Lock()

    def _reply_for(self, request: ModelRequest) -> Reply:
        raise NotImplementedError

    def stream(self, request: ModelRequest) -> Iterator[ModelOutput]:
        """Stream the next reply: TextChunks, then a Completion; honours cancel and (optionally) stop."""
        with self._lock:
            self.requests.append(request)
            reply = self._reply_for(request)
        return self._emit(reply, request)

    def _emit(self, reply: Reply, request: ModelRequest) -> Iterator[ModelOutput]:
        started = time.perf_counter()
        if reply.delay and _sleep(reply.delay, request):
            raise ModelError("cancelled", "cancelled while waiting for the model")
        if reply.error is not None:
            raise reply.error
        text = apply_stop(reply.text, request.stop) if self.honor_stop else reply.text
        first: float | None = None
        if reply.reasoning:
            first = (time.perf_counter() - started) * 1000
            yield TextChunk(reply.reasoning, "reasoning")
        for piece in split_chunks(text) if self.stream_chunks else ([text] if text else []):
            if reply.chunk_delay and _sleep(reply.chunk_delay, request):
                raise ModelError("cancelled", "cancelled while the model was writing")
            first = first if first is not None else (time.perf_counter() - started) * 1000
            yield TextChunk(piece)
        usage = Usage(*reply.usage) if reply.usage else None
        yield Completion(
            text=text,
            reasoning=reply.reasoning,
            tool_calls=reply.calls(),
            usage=usage,
            latency_ms=(time.perf_counter() - started) * 1000,
            ttft_ms=first,
            finish_reason="tool_calls" if reply.tool_calls else "stop",
        )


class ScriptedModel(_FakeModel):
    """Replies from a queue, in order; ``assert_complete()`` checks every reply was used."""

    def __init__(
        self,
        replies: Iterable[ReplyLike],
        *,
        name: str = "scripted",
        honor_stop: bool = False,
        stream_chunks: bool = True,
        keep_requests: int | None = None,
    ) -> None:
        super().__init__(name, honor_stop, stream_chunks, keep_requests)
        self._queue: deque[Reply] = deque(as_reply(r) for r in replies)
        self.used = 0

    @property
    def remaining(self) -> int:
        """Replies not used yet."""
        return len(self._queue)

    def _reply_for(self, request: ModelRequest) -> Reply:
        if not self._queue:
            raise ModelError("server", f"ScriptedModel ran out of replies after {self.used} calls")
        self.used += 1
        return self._queue.popleft()

    def assert_complete(self) -> None:
        """Fail if some scripted replies were never requested."""
        if self._queue:
            raise AssertionError(f"ScriptedModel: {len(self._queue)} of {self.used + len(self._queue)} replies unused")


class FunctionModel(_FakeModel):
    """Computes each reply from the messages: ``fn(messages, request) -> str | Reply``."""

    def __init__(
        self,
        fn: Callable[[list[Message], ModelRequest], ReplyLike],
        *,
        name: str = "function",
        honor_stop: bool = False,
        stream_chunks: bool = True,
        keep_requests: int | None = None,
    ) -> None:
        super().__init__(name, honor_stop, stream_chunks, keep_requests)
        self.fn = fn

    def _reply_for(self, request: ModelRequest) -> Reply:
        return as_reply(self.fn(request.messages, request))


def apply_stop(text: str, stop: str | list[str] | None) -> str:
    """``text`` cut before the first stop sequence, as an OpenAI-compatible server does."""
    markers = [stop] if isinstance(stop, str) else list(stop or [])
    cut = len(text)
    for marker in markers:
        index = text.find(marker)
        if index != -1:
            cut = min(cut, index)
    return text[:cut]


def _sleep(seconds: float, request: ModelRequest) -> bool:
    """Sleep, waking early on cancel; returns True when cancelled."""
    if request.cancel is not None:
        return request.cancel.wait(seconds)
    time.sleep(seconds)
    return False
