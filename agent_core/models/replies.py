"""Reading a model endpoint's reply: the stream pumped by a reader thread, its chunks gathered, its faults named.

``pumped`` iterates a blocking stream in a reader thread, so a cancel or the run's time limit is honoured even
while a read blocks; ``StreamAccumulator`` gathers the chunks into text, reasoning, tool calls and usage, and
says what went wrong when a stream ends without a finish reason. An endpoint that is not what it claims (a base
URL serving a web page, JSON that is not a chat completion, an empty ``choices`` list, a stream of invalid JSON)
ends the call at once, with no retry, with a ``ModelError`` of kind ``protocol`` whose one sentence says what the
URL returned and what to check, never a parse traceback.
"""

from __future__ import annotations

import json
import queue
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from openai.types.chat import ChatCompletionChunk

from agent_core.events import Usage
from agent_core.guards import json_limits
from agent_core.guards.limits import CancelToken
from agent_core.models.chat import Completion, ModelError, TextChunk, ToolCall

_POLL_S = 0.05
SETTLE_S = 1.0
"""After a chunk with ``finish_reason``, how long to wait for more (usage, ``[DONE]``) before keeping the reply."""


def pumped(
    produce: Callable[[], Iterator[Any]],
    cancel: CancelToken | None,
    *,
    ends_at: float | None = None,
    settled: Callable[[], bool] | None = None,
    endpoint: str = "the model server",
) -> Iterator[Any]:
    """Iterate ``produce()`` in a reader thread so that a cancel is honoured even while a read blocks.

    Closing an HTTP stream from another thread does not wake a blocked socket read; polling a queue
    does. The abandoned reader ends at its own read timeout. Past ``ends_at`` (monotonic) the call
    ends with a timeout however fast the server writes; once ``settled()`` (a complete answer came)
    a server that goes quiet for SETTLE_S seconds is not waited for.
    """
    box = _reader(produce)
    last = time.monotonic()
    while True:
        if ends_at is not None and time.monotonic() >= ends_at:
            raise ModelError("timeout", f"{endpoint} was still sending its reply when the time limit ran out")
        try:
            kind, value = box.get(timeout=_POLL_S)
        except queue.Empty:
            if cancel is not None and cancel.cancelled:
                raise ModelError("cancelled", "cancelled while waiting for the model") from None
            if settled is not None and settled() and time.monotonic() - last >= SETTLE_S:
                return
            continue
        if kind == "done":
            return
        if kind == "error":
            raise value
        last = time.monotonic()
        yield value


def _reader(produce: Callable[[], Iterator[Any]]) -> queue.Queue[tuple[str, Any]]:
    """Start a thread that puts ``produce()``'s items (then "done", or the "error") in the returned queue."""
    box: queue.Queue[tuple[str, Any]] = queue.Queue()

    def read() -> None:
        try:
            for item in produce():
                box.put(("item", item))
            box.put(("done", None))
        except BaseException as exc:
            box.put(("error", exc))

    threading.Thread(target=read, name="model-stream", daemon=True).start()
    return box


class StreamAccumulator:
    """Collects streamed chunks into text, reasoning, tool calls and usage."""

    def __init__(self) -> None:
        self.text: list[str] = []
        self.reasoning: list[str] = []
        self.calls: dict[int, dict[str, str]] = {}
        self.usage: Usage | None = None
        self.finish_reason: str | None = None
        self.ttft_ms: float | None = None
        self.retried_after: tuple[str, ...] = ()
        self.chunks = 0
        """Chunks received, and of those, chunks that carried at least one choice."""
        self.with_choices = 0

    def add(self, chunk: Any) -> list[TextChunk]:
        """Take one streamed chunk; return its text and reasoning pieces, to show now."""
        self.chunks += 1
        self.with_choices += bool(chunk.choices)
        if getattr(chunk, "usage", None):
            self.usage = usage_of(chunk.usage)
        pieces: list[TextChunk] = []
        for choice in chunk.choices or ():
            self.finish_reason = choice.finish_reason or self.finish_reason
            delta = choice.delta
            if delta is None:
                continue
            reasoning = reasoning_of(delta)
            if reasoning:
                self.reasoning.append(reasoning)
                pieces.append(TextChunk(reasoning, "reasoning"))
            if delta.content:
                self.text.append(delta.content)
                pieces.append(TextChunk(delta.content))
            for call in delta.tool_calls or ():
                self._add_call(call)
        return pieces

    def _add_call(self, call: Any) -> None:
        slot = self.calls.setdefault(call.index or 0, {"id": "", "name": "", "arguments": ""})
        if call.id:
            slot["id"] = call.id
        function = call.function
        if function is not None:
            slot["name"] += function.name or ""
            slot["arguments"] += function.arguments or ""

    def fault(self, endpoint: str, model: str) -> ModelError | None:
        """What went wrong with a stream that ended without a finish reason (None when it finished)."""
        if self.finish_reason is not None:
            return None
        if self.chunks and not self.with_choices:
            return ModelError(
                "protocol",
                f"{endpoint} streamed {self.chunks} chunk(s) for model {model!r} with no choice in any "
                "(`choices: []`), so no reply arrived: check that the server serves this model as OpenAI-compatible "
                "chat completions.",
            )
        received = sum(map(len, self.text)) + sum(len(c["arguments"]) for c in self.calls.values())
        return ModelError(
            "connection",
            f"The stream from {endpoint} ended in the middle of the reply after {received:,} characters "
            "(no finish reason, no [DONE]): the connection dropped or the server stopped early.",
        )

    def completion(self, latency_ms: float) -> Completion:
        """The whole reply gathered so far, as one Completion."""
        calls = tuple(
            ToolCall(slot["id"] or f"call_{index}", slot["name"], slot["arguments"])
            for index, slot in sorted(self.calls.items())
        )
        return Completion(
            text="".join(self.text),
            reasoning="".join(self.reasoning),
            tool_calls=calls,
            usage=self.usage,
            latency_ms=latency_ms,
            ttft_ms=self.ttft_ms,
            finish_reason=self.finish_reason,
            retried_after=self.retried_after,
        )


def reasoning_of(obj: Any) -> str:
    """The reasoning text a message or delta carries (``reasoning_content`` or ``reasoning``), else ""."""
    extra = getattr(obj, "model_extra", None) or {}
    value = extra.get("reasoning_content") or extra.get("reasoning") or ""
    return value if isinstance(value, str) else ""


def usage_of(usage: Any) -> Usage | None:
    """The provider's usage: tokens in and out, and of those the cached prompt and the reasoning tokens."""
    if usage is None or getattr(usage, "prompt_tokens", None) is None:
        return None
    prompt, completion = token_count(usage.prompt_tokens), token_count(usage.completion_tokens)
    cached = _detail(usage, "prompt_tokens_details", "cached_tokens") or _detail(usage, None, "prompt_cache_hit_tokens")
    reasoning = _detail(usage, "completion_tokens_details", "reasoning_tokens")
    return Usage(prompt, completion, False, min(cached, prompt), min(reasoning, completion))


def _detail(usage: Any, group: str | None, name: str) -> int:
    """One count of the usage's details (OpenAI's ``*_tokens_details``, DeepSeek's top-level extras), else 0."""
    holder = getattr(usage, group, None) if group else usage
    if isinstance(holder, dict):
        return token_count(holder.get(name))
    value = getattr(holder, name, None)
    if value is None:
        value = (getattr(holder, "model_extra", None) or {}).get(name)
    return token_count(value)


# --- endpoints that are not what they claim ------------------------------------------------------------------------

BASE_URL_HINT = "most base URLs end in /v1 (for example http://localhost:11434/v1 for Ollama)"
_PEEK = 4096
"""Bytes of an unexpected body read to tell what it is."""


def web_page(endpoint: str) -> ModelError:
    """The URL answered with HTML."""
    return ModelError("protocol", f"{endpoint} returned a web page, not an OpenAI-compatible API — {BASE_URL_HINT}.")


def describe_body(endpoint: str, content_type: str, body: bytes | str, *, model: str) -> ModelError:
    """The error for a body that is not what a chat-completions (or models) call returns."""
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
    text = text[:_PEEK].strip()
    if "html" in content_type.lower() or text[:1] == "<":
        return web_page(endpoint)
    if not text:
        return ModelError("protocol", f"{endpoint} answered with an empty body — check the base URL ({BASE_URL_HINT}).")
    try:
        data = json_limits.loads(text)
    except ValueError:
        shown = content_type.split(";")[0].strip() or "no content type"
        return ModelError(
            "protocol",
            f"{endpoint} answered with something that is not JSON ({shown}), so it is not an OpenAI-compatible API"
            f" — {BASE_URL_HINT}.",
        )
    return describe_json(endpoint, data, model=model)


def describe_json(endpoint: str, data: Any, *, model: str) -> ModelError:
    """The error for JSON that is not a usable chat completion."""
    if isinstance(data, dict) and isinstance(data.get("error"), (dict, str)):
        error = data["error"]
        message = error.get("message") if isinstance(error, dict) else error
        return ModelError("bad_request", f"{endpoint} answered with an error: {str(message)[:300]}")
    if isinstance(data, dict) and data.get("choices") == []:
        return ModelError(
            "protocol",
            f"{endpoint} returned a chat completion with no choices for model {model!r} — the server produced"
            " nothing; check the model name and the server's log.",
        )
    keys = ", ".join(json.dumps(k)[:30] for k in sorted(map(str, data))[:6]) if isinstance(data, dict) else ""
    keys = keys or type(data).__name__
    return ModelError(
        "protocol",
        f"{endpoint} returned JSON that is not a chat completion ({keys}) — it is probably not an"
        f" OpenAI-compatible chat endpoint; {BASE_URL_HINT}.",
    )


def bad_stream(endpoint: str, problem: str) -> ModelError:
    """The error for a stream whose events are not OpenAI chunks (invalid JSON, wrong shape)."""
    return ModelError(
        "protocol",
        f"The stream from {endpoint} held invalid data ({problem[:120]}) — the server does not speak OpenAI's"
        " streaming format; check the base URL or turn streaming off.",
    )


def is_completion(data: Any) -> bool:
    """True for a dict shaped like a whole (non-streamed) chat completion with at least one choice."""
    choices = data.get("choices") if isinstance(data, dict) else None
    return bool(choices) and isinstance(choices[0], dict) and isinstance(choices[0].get("message"), dict)


def peek_body(response: Any, limit: int = 2_000_000) -> bytes:
    """At most ``limit`` bytes of a body (an unexpected reply may be huge)."""
    data = b""
    for part in response.iter_bytes():
        data += part
        if len(data) >= limit:
            break
    return data


def as_chunk(data: dict[str, Any]) -> ChatCompletionChunk:
    """A whole chat completion re-read as one streamed chunk."""
    choice = data["choices"][0]
    delta = {k: v for k, v in choice["message"].items() if k != "tool_calls"}
    calls = choice["message"].get("tool_calls") or []
    if calls:
        delta["tool_calls"] = [{**c, "index": i} for i, c in enumerate(calls) if isinstance(c, dict)]
    return ChatCompletionChunk.model_validate(
        {
            "id": str(data.get("id") or "whole"),
            "object": "chat.completion.chunk",
            "created": int(data.get("created") or 0),
            "model": str(data.get("model") or ""),
            "choices": [{"index": 0, "delta": delta, "finish_reason": choice.get("finish_reason") or "stop"}],
            "usage": data.get("usage"),
        }
    )


def token_count(value: Any) -> int:
    """A token count a server reported, kept within what can be stored and exported (0 when absurd)."""
    try:
        number = int(value or 0)
    except (TypeError, ValueError, OverflowError):
        return 0
    return number if 0 <= number <= 2**53 else 0
