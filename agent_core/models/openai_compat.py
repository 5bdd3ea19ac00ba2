"""ChatModel for any OpenAI-compatible endpoint (OpenAI, DeepSeek, Qwen, Moonshot, Ollama, vLLM, llama.cpp).

``OpenAIChatModel`` streams chat completions through the official ``openai`` client, which retries 408/409/429/5xx
replies and dropped connections with backoff on its own; an ``AttemptLog`` (an httpx response hook, per thread)
notes every attempt's status so a step can say it was retried after a 503. A base URL typed by a user of a shared
deployment must not reach the server's own loopback, private or link-local addresses, and checking the name when
it is typed is not enough (it may resolve elsewhere by the time a request goes: DNS rebinding), so a
``GuardedTransport`` checks at connect time, inside httpcore2's network backend: the host is resolved, every
address is checked against the web tools' ``AddressPolicy``, and the socket goes to exactly the checked address
(TLS still verifies the host name). Replies are read and judged in ``replies``; failures become ``ModelError``s
that say what to do (``translate_error``).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Iterator
from typing import Any

import httpcore2
import httpx2
import openai
import pydantic
from openai.types.chat import ChatCompletion

from agent_core.env_settings import env_settings
from agent_core.guards import json_limits
from agent_core.guards.masking import register_secret
from agent_core.models.chat import Completion, ModelError, ModelOutput, ModelRequest, ToolCall
from agent_core.models.replies import (
    StreamAccumulator,
    as_chunk,
    bad_stream,
    describe_body,
    describe_json,
    is_completion,
    peek_body,
    pumped,
    reasoning_of,
    usage_of,
    web_page,
)
from agent_core.tools.network.http import AddressPolicy, HttpError, resolve

DEFAULT_MODEL = "gpt-4o-mini"
NO_KEY_PLACEHOLDER = "sk-no-key-required"
"""Sent to servers that need no key (Ollama, vLLM, llama.cpp); the openai client insists on one."""


class OpenAIChatModel:
    """Streams chat completions through the official ``openai`` client, with timeouts and retries.

    ``use_environment=False``: no fallback to SPARROW_MODEL, OPENAI_BASE_URL or OPENAI_API_KEY (the app decides
    which key goes where); ``address_policy``: every connection is checked against it (a URL a user typed).
    """

    def __init__(
        self,
        model: str | None = None,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float = 60.0,
        max_retries: int = 3,
        streaming: bool = True,
        use_environment: bool = True,
        address_policy: AddressPolicy | None = None,
    ) -> None:
        env = env_settings({} if not use_environment else None)
        self.name = model or env.sparrow_model or DEFAULT_MODEL
        self.base_url = base_url or env.openai_base_url
        key = api_key or env.openai_api_key
        if key is None and self.base_url is None:
            raise ModelError(
                "config",
                "No model endpoint configured: set OPENAI_API_KEY for OpenAI, or OPENAI_BASE_URL for "
                "another OpenAI-compatible server (e.g. http://localhost:11434/v1 for Ollama).",
            )
        register_secret(key)  # masked wherever it might show up: events, output, exports
        self.timeout = timeout
        self.streaming = streaming
        self._send_stream_options = True
        self.json_mode: str = "json_schema"
        """How a ``json_schema`` response format is sent: as is, or as ``json_object`` once the server refused it."""
        self._max_tokens_field = "max_tokens"
        # The openai client retries 429, 5xx, timeouts and connection errors with exponential backoff;
        # the attempt log notes each attempt's status so a step can say it was retried after a 503.
        self._attempts = AttemptLog()
        guarded = None if address_policy is None else GuardedTransport(address_policy)
        self._client = openai.OpenAI(
            api_key=key or NO_KEY_PLACEHOLDER,
            base_url=self.base_url,
            timeout=timeout,
            max_retries=max_retries,
            http_client=openai.DefaultHttpxClient(event_hooks={"response": [self._attempts.hook]}, transport=guarded),
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
            raw = self._client.models.with_raw_response.list(timeout=min(self.timeout, 15.0))
        except openai.OpenAIError as exc:
            raise self._translate(exc) from None
        content_type = raw.headers.get("content-type", "")
        try:
            data = json_limits.loads(raw.content) if "json" in content_type else None
        except ValueError:
            data = None
        if data is None:
            raise describe_body(self.endpoint, content_type, raw.content, model=self.name)
        listed = data.get("data") if isinstance(data, dict) else None
        if not isinstance(listed, list):
            raise describe_json(self.endpoint, data, model=self.name)
        return sorted(str(m["id"]) for m in listed if isinstance(m, dict) and "id" in m)

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
        if request.max_tokens is not None:
            params[self._max_tokens_field] = request.max_tokens
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
        """The parsed reply (a chunk stream, or a whole completion), or a ModelError naming the likely cause."""
        try:
            raw = self._client.chat.completions.with_raw_response.create(**self._params(request, stream))
        except (openai.BadRequestError, openai.UnprocessableEntityError) as exc:
            if stream and self._send_stream_options and "stream_options" in str(exc):
                self._send_stream_options = False  # older servers reject it; usage is then estimated
                return self._create(request, stream)
            if self._max_tokens_field == "max_tokens" and "max_completion_tokens" in str(exc):
                self._max_tokens_field = "max_completion_tokens"  # OpenAI's reasoning models
                return self._create(request, stream)
            if request.response_format and "response_format" in str(exc):
                return self._without_schema(request, stream, exc)
            raise self._translate(exc) from None
        except openai.OpenAIError as exc:
            raise self._translate(exc) from None
        self._attempts.retries_taken = raw.retries_taken
        return self._checked(raw, stream)

    def _checked(self, raw: Any, stream: bool) -> Any:
        """Refuse a 200 reply that is not what a chat-completions endpoint returns (one sentence, no retry)."""
        content_type = raw.headers.get("content-type", "")
        if stream and "event-stream" in content_type:
            return raw.parse()
        if "html" in content_type:
            raise web_page(self.endpoint)
        body = peek_body(raw.http_response)
        try:
            data = json_limits.loads(body)
        except ValueError:
            raise describe_body(self.endpoint, content_type, body, model=self.name) from None
        if not is_completion(data):
            raise describe_json(self.endpoint, data, model=self.name)
        try:  # a server that ignored stream=true sent one whole reply: read it as a single chunk
            return iter([as_chunk(data)]) if stream else ChatCompletion.model_validate(data)
        except pydantic.ValidationError:
            raise describe_json(self.endpoint, {"choices": "malformed"}, model=self.name) from None

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
        acc = StreamAccumulator()
        stop = threading.Event()

        def chunks() -> Iterator[Any]:
            self._attempts.start()
            stream = self._create(request, stream=True)
            acc.retried_after = self._attempts.retried_after()
            try:
                for chunk in stream:
                    if stop.is_set():
                        return
                    yield chunk
            finally:
                close = getattr(stream, "close", None)  # a whole reply read as one chunk has nothing to close
                if close is not None:
                    close()

        ends_at = None if request.timeout is None else time.monotonic() + request.timeout
        settled = lambda: acc.finish_reason is not None  # noqa: E731 - a complete answer needs no [DONE]
        try:
            for chunk in pumped(chunks, request.cancel, ends_at=ends_at, settled=settled, endpoint=self.endpoint):
                for piece in acc.add(chunk):
                    if acc.ttft_ms is None:
                        acc.ttft_ms = (time.perf_counter() - started) * 1000
                    yield piece
        except Exception as exc:
            if not (settled() and isinstance(exc, (openai.APIError, OSError))):
                raise self._stream_error(exc) from None
            # the connection broke after a complete answer: keep it
        finally:
            stop.set()
        fault = acc.fault(self.endpoint, self.name)
        if fault is not None:
            raise fault  # named for what happened: not a reply in the wrong format, nothing to retry
        yield acc.completion((time.perf_counter() - started) * 1000)

    def _stream_error(self, exc: Exception) -> ModelError:
        if isinstance(exc, ModelError):
            return exc
        if isinstance(exc, openai.OpenAIError):
            return self._translate(exc)
        if isinstance(exc, RecursionError):
            return bad_stream(self.endpoint, "a chunk nested too deep to read")
        if isinstance(exc, (ValueError, pydantic.ValidationError)):
            return bad_stream(self.endpoint, str(exc))
        return ModelError("connection", f"The stream from {self.endpoint} broke off: {exc}")

    def _whole(self, request: ModelRequest) -> Completion:
        started = time.perf_counter()
        try:
            response, retried = next(pumped(lambda: iter([self._attempted(request)]), request.cancel))
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
            reasoning=reasoning_of(message),
            tool_calls=calls,
            usage=usage_of(response.usage),
            latency_ms=latency,
            ttft_ms=None,
            finish_reason=choice.finish_reason,
            retried_after=retried,
        )

    def _attempted(self, request: ModelRequest) -> tuple[ChatCompletion, tuple[str, ...]]:
        """A whole (unstreamed) reply, and what the client retried to get it."""
        self._attempts.start()
        response = self._create(request, stream=False)
        return response, self._attempts.retried_after()

    def _translate(self, exc: Exception) -> ModelError:
        return translate_error(exc, endpoint=self.endpoint, model=self.name, timeout=self.timeout)


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


# --- what the client retried ---------------------------------------------------------------------------------------

RETRIED_STATUSES = frozenset({408, 409, 429})
"""Statuses below 500 the client retries (every 5xx is retried too)."""


def retried_status(status: int) -> bool:
    """True for a status the openai client repeats the request after."""
    return status in RETRIED_STATUSES or status >= 500


class AttemptLog(threading.local):
    """The statuses of the current thread's HTTP responses since ``start()``."""

    def __init__(self) -> None:
        self.statuses: list[int] = []
        self.retries_taken = 0

    def start(self) -> None:
        """Forget earlier calls: a new model call begins in this thread."""
        self.statuses = []
        self.retries_taken = 0

    def hook(self, response: Any) -> None:
        """The httpx ``response`` event hook: note the status."""
        self.statuses.append(int(response.status_code))

    def retried_after(self) -> tuple[str, ...]:
        """Why the call was repeated: the failed attempts' codes (``"503"``), ``"connection"`` for no reply."""
        failed = [str(s) for s in self.statuses[:-1] if retried_status(s)]
        answered = len(self.statuses)  # attempts that got a response (the last one included)
        lost = max(0, self.retries_taken + 1 - answered)
        return tuple(failed) + ("connection",) * lost


# --- connections checked at connect time ---------------------------------------------------------------------------

CONNECT_TIMEOUT_S = 10.0
"""Longest name lookup when the client gives no connect timeout."""


class RefusedEndpoint(httpcore2.ConnectError):
    """The endpoint's address is not one this deployment lets a user-typed URL reach."""


class GuardedBackend(httpcore2.SyncBackend):
    """httpcore2's socket backend, resolving and checking the host before it connects to the checked address."""

    def __init__(self, policy: AddressPolicy) -> None:
        self.policy = policy

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore2.NetworkStream:
        """Connect to ``host`` only if every address it resolves to is allowed (to the first of them)."""
        try:
            addresses = resolve(host, port, timeout or CONNECT_TIMEOUT_S)
            self.policy.check(host, addresses)
        except HttpError as exc:
            raise RefusedEndpoint(str(exc)) from None
        return super().connect_tcp(addresses[0], port, timeout, local_address, socket_options)


class GuardedTransport(httpx2.HTTPTransport):
    """The openai client's ``httpx2.HTTPTransport``, its pool connecting through a ``GuardedBackend`` (no proxy)."""

    def __init__(self, policy: AddressPolicy) -> None:
        super().__init__(trust_env=False)
        self._pool = httpcore2.ConnectionPool(
            ssl_context=httpx2.create_ssl_context(trust_env=False),
            max_connections=100,
            max_keepalive_connections=20,
            keepalive_expiry=5.0,
            network_backend=GuardedBackend(policy),
        )
