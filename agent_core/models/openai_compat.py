"""ChatModel for any OpenAI-compatible endpoint (OpenAI, DeepSeek, Qwen, Moonshot, Ollama, vLLM, llama.cpp)."""

from __future__ import annotations

import os
import queue
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import openai

from agent_core.events import Usage
from agent_core.limits import CancelToken
from agent_core.models.base import Completion, ModelOutput, ModelRequest, TextChunk, ToolCall
from agent_core.models.errors import ModelError

DEFAULT_MODEL = "gpt-4o-mini"
_POLL_S = 0.05
NO_KEY_PLACEHOLDER = "sk-no-key-required"
"""Sent to servers that need no key (Ollama, vLLM, llama.cpp); the openai client insists on one."""


class OpenAIChatModel:
    """Streams chat completions through the official ``openai`` client, with timeouts and retries."""

    def __init__(
        self,
        model: str | None = None,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float = 60.0,
        max_retries: int = 3,
        streaming: bool = True,
    ) -> None:
        self.name = model or os.environ.get("SPARROW_MODEL") or DEFAULT_MODEL
        self.base_url = base_url or os.environ.get("OPENAI_BASE_URL") or None
        key = api_key or os.environ.get("OPENAI_API_KEY") or None
        if key is None and self.base_url is None:
            raise ModelError(
                "config",
                "No model endpoint configured: set OPENAI_API_KEY for OpenAI, or OPENAI_BASE_URL for "
                "another OpenAI-compatible server (e.g. http://localhost:11434/v1 for Ollama).",
            )
        self.timeout = timeout
        self.streaming = streaming
        self._send_stream_options = True
        self.json_mode: str = "json_schema"
        """How a ``json_schema`` response format is sent: as is, or as ``json_object`` once the server refused it."""
        # The openai client retries 429, 5xx, timeouts and connection errors with exponential backoff.
        self._client = openai.OpenAI(
            api_key=key or NO_KEY_PLACEHOLDER,
            base_url=self.base_url,
            timeout=timeout,
            max_retries=max_retries,
        )

    def __repr__(self) -> str:
        return f"OpenAIChatModel(model={self.name!r}, base_url={self.endpoint!r})"

    @property
    def endpoint(self) -> str:
        """The base URL calls go to (the official OpenAI API when none is set)."""
        return str(self._client.base_url).rstrip("/")

    def stream(self, request: ModelRequest) -> Iterator[ModelOutput]:
        """Stream one chat completion; yields TextChunks, then one Completion."""
        if request.cancel is not None and request.cancel.cancelled:
            raise ModelError("cancelled", "cancelled before the model call")
        if self.streaming:
            yield from self._streamed(request)
        else:
            yield self._whole(request)

    def list_models(self) -> list[str]:
        """Names of the models the endpoint serves (used by "Test connection")."""
        try:
            return sorted(m.id for m in self._client.models.list(timeout=min(self.timeout, 15.0)))
        except openai.OpenAIError as exc:
            raise self._translate(exc) from None

    def _params(self, request: ModelRequest, stream: bool) -> dict[str, Any]:
        params: dict[str, Any] = {"model": self.name, "messages": request.messages, "stream": stream}
        if request.tools:
            params["tools"] = request.tools
        if request.stop:
            params["stop"] = request.stop
        if request.response_format:
            params["response_format"] = self._response_format(request.response_format)
        if request.temperature is not None:
            params["temperature"] = request.temperature
        if stream and self._send_stream_options:
            params["stream_options"] = {"include_usage": True}
        timeout = self.timeout if request.timeout is None else min(self.timeout, max(request.timeout, 0.1))
        params["timeout"] = timeout
        params.update(request.extra)
        return params

    def _response_format(self, wanted: dict[str, Any]) -> dict[str, Any]:
        if wanted.get("type") == "json_schema" and self.json_mode == "json_object":
            return {"type": "json_object"}  # the reply is still checked against the schema by the protocol
        return wanted

    def _create(self, request: ModelRequest, stream: bool) -> Any:
        try:
            return self._client.chat.completions.create(**self._params(request, stream))
        except (openai.BadRequestError, openai.UnprocessableEntityError) as exc:
            if stream and self._send_stream_options and "stream_options" in str(exc):
                self._send_stream_options = False  # older servers reject it; usage is then estimated
                return self._create(request, stream)
            if request.response_format and "response_format" in str(exc):
                return self._without_schema(request, stream, exc)
            raise self._translate(exc) from None
        except openai.OpenAIError as exc:
            raise self._translate(exc) from None

    def _without_schema(self, request: ModelRequest, stream: bool, exc: openai.APIStatusError) -> Any:
        """After a refused ``response_format``: retry in JSON mode once, else say the protocol cannot work here."""
        if self.json_mode == "json_schema" and (request.response_format or {}).get("type") == "json_schema":
            self.json_mode = "json_object"
            return self._create(request, stream)
        raise ModelError(
            "bad_request",
            f"{self.endpoint} accepts neither a JSON schema nor JSON mode for replies of model {self.name!r} "
            f"(it refused response_format{_server_message(exc).replace(' Server said:', ':')}), so protocol json "
            "cannot be used with it: choose the react or tools protocol.",
        ) from None

    def _streamed(self, request: ModelRequest) -> Iterator[ModelOutput]:
        started = time.perf_counter()
        acc = _StreamAccumulator()
        stop = threading.Event()

        def chunks() -> Iterator[Any]:
            stream = self._create(request, stream=True)
            try:
                for chunk in stream:
                    if stop.is_set():
                        return
                    yield chunk
            finally:
                stream.close()

        try:
            for chunk in pumped(chunks, request.cancel):
                for piece in acc.add(chunk):
                    if acc.ttft_ms is None:
                        acc.ttft_ms = (time.perf_counter() - started) * 1000
                    yield piece
        except openai.OpenAIError as exc:
            raise self._translate(exc) from None
        except ModelError:
            raise
        except Exception as exc:
            raise ModelError("connection", f"The stream from {self.endpoint} broke off: {exc}") from None
        finally:
            stop.set()
        yield acc.completion((time.perf_counter() - started) * 1000)

    def _whole(self, request: ModelRequest) -> Completion:
        started = time.perf_counter()
        try:
            response = next(pumped(lambda: iter([self._create(request, stream=False)]), request.cancel))
        except openai.OpenAIError as exc:
            raise self._translate(exc) from None
        latency = (time.perf_counter() - started) * 1000
        if not response.choices:
            raise ModelError("server", f"{self.endpoint} returned no choices for model {self.name!r}")
        choice = response.choices[0]
        message = choice.message
        calls = tuple(
            ToolCall(c.id or f"call_{i}", c.function.name, c.function.arguments or "")
            for i, c in enumerate(message.tool_calls or ())
            if getattr(c, "function", None) is not None
        )
        return Completion(
            text=message.content or "",
            reasoning=_reasoning_of(message),
            tool_calls=calls,
            usage=_usage_of(response.usage),
            latency_ms=latency,
            ttft_ms=None,
            finish_reason=choice.finish_reason,
        )

    def _translate(self, exc: Exception) -> ModelError:
        return translate_error(exc, endpoint=self.endpoint, model=self.name, timeout=self.timeout)


def pumped(produce: Callable[[], Iterator[Any]], cancel: CancelToken | None) -> Iterator[Any]:
    """Iterate ``produce()`` in a reader thread so that a cancel is honoured even while a read blocks.

    Closing an HTTP stream from another thread does not wake a blocked socket read; polling a queue
    does. The abandoned reader ends at its own read timeout.
    """
    box: queue.Queue[tuple[str, Any]] = queue.Queue()

    def read() -> None:
        try:
            for item in produce():
                box.put(("item", item))
            box.put(("done", None))
        except BaseException as exc:
            box.put(("error", exc))

    threading.Thread(target=read, name="model-stream", daemon=True).start()
    while True:
        try:
            kind, value = box.get(timeout=_POLL_S)
        except queue.Empty:
            if cancel is not None and cancel.cancelled:
                raise ModelError("cancelled", "cancelled while waiting for the model") from None
            continue
        if kind == "done":
            return
        if kind == "error":
            raise value
        yield value


class _StreamAccumulator:
    """Collects streamed chunks into text, reasoning, tool calls and usage."""

    def __init__(self) -> None:
        self.text: list[str] = []
        self.reasoning: list[str] = []
        self.calls: dict[int, dict[str, str]] = {}
        self.usage: Usage | None = None
        self.finish_reason: str | None = None
        self.ttft_ms: float | None = None

    def add(self, chunk: Any) -> list[TextChunk]:
        if getattr(chunk, "usage", None):
            self.usage = _usage_of(chunk.usage)
        pieces: list[TextChunk] = []
        for choice in chunk.choices or ():
            self.finish_reason = choice.finish_reason or self.finish_reason
            delta = choice.delta
            if delta is None:
                continue
            reasoning = _reasoning_of(delta)
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

    def completion(self, latency_ms: float) -> Completion:
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
        )


def _reasoning_of(obj: Any) -> str:
    extra = getattr(obj, "model_extra", None) or {}
    value = extra.get("reasoning_content") or extra.get("reasoning") or ""
    return value if isinstance(value, str) else ""


def _usage_of(usage: Any) -> Usage | None:
    if usage is None or getattr(usage, "prompt_tokens", None) is None:
        return None
    return Usage(int(usage.prompt_tokens or 0), int(usage.completion_tokens or 0), estimated=False)


def translate_error(exc: Exception, *, endpoint: str, model: str, timeout: float) -> ModelError:
    """Turn an openai exception into a ModelError whose message tells the user what to do."""
    detail = _server_message(exc)
    if isinstance(exc, openai.AuthenticationError):
        return ModelError("auth", f"{endpoint} rejected the API key (401). Check OPENAI_API_KEY.{detail}")
    if isinstance(exc, openai.PermissionDeniedError):
        return ModelError("auth", f"{endpoint} refused access to model {model!r} (403).{detail}")
    if isinstance(exc, openai.NotFoundError):
        return ModelError(
            "not_found",
            f"Model {model!r} was not found at {endpoint} (404). Check the model name and the base URL.{detail}",
        )
    if isinstance(exc, openai.RateLimitError):
        return ModelError("rate_limit", f"{endpoint} kept rate-limiting the request (429) after retries.{detail}")
    if isinstance(exc, openai.APITimeoutError):
        return ModelError("timeout", f"{endpoint} did not answer within {timeout:g} s (timed out).")
    if isinstance(exc, openai.APIConnectionError):
        cause = f" ({exc.__cause__})" if exc.__cause__ else ""
        return ModelError(
            "connection",
            f"Cannot connect to {endpoint}: connection failed or refused{cause}. Is the server running "
            "and the base URL right?",
        )
    if isinstance(exc, openai.InternalServerError) or (
        isinstance(exc, openai.APIStatusError) and exc.status_code >= 500
    ):
        code = getattr(exc, "status_code", "5xx")
        return ModelError("server", f"{endpoint} failed with a server error ({code}) after retries.{detail}")
    if isinstance(exc, openai.APIStatusError):
        return ModelError("bad_request", f"{endpoint} refused the request ({exc.status_code}).{detail}")
    return ModelError("server", f"Unexpected error from {endpoint}: {exc}")


def _server_message(exc: Exception) -> str:
    body = getattr(exc, "body", None)
    message = body.get("message") if isinstance(body, dict) else None
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        message = body["error"].get("message")
    return f" Server said: {str(message)[:300]}" if message else ""
