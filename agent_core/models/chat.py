"""What a chat model is to Sparrow: the ``ChatModel`` protocol, its request and reply shapes, its errors.

A model takes a ``ModelRequest`` (messages in OpenAI format, tool schemas, stop sequences, limits) and streams
``TextChunk``s, then one ``Completion`` (text, reasoning, tool calls, usage, timings). A failure is a ``ModelError``
with a kind and a message meant for people, never a raw traceback. For providers that send no usage, tokens are
estimated here (and marked ``estimated`` wherever shown).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from agent_core.events import Usage
from agent_core.guards.limits import CancelToken

Message = dict[str, Any]
"""One chat message in OpenAI format (role, content, tool_calls, tool_call_id...)."""


@dataclass(frozen=True)
class ToolCall:
    """A tool call requested by the model."""

    id: str
    name: str
    arguments: str
    """Raw JSON arguments as the model wrote them."""

    def to_dict(self) -> dict[str, str]:
        """``{"id", "name", "arguments"}``, the shape stored in ModelFinished events."""
        return {"id": self.id, "name": self.name, "arguments": self.arguments}


@dataclass(frozen=True)
class TextChunk:
    """A streamed piece of output."""

    text: str
    channel: Literal["text", "reasoning"] = "text"


@dataclass(frozen=True)
class Completion:
    """The whole reply of one model call."""

    text: str = ""
    reasoning: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage | None = None
    """None when the provider sent no usage; the loop then estimates it."""
    latency_ms: float = 0.0
    ttft_ms: float | None = None
    finish_reason: str | None = None
    retried_after: tuple[str, ...] = ()
    """Failed attempts the client repeated before this reply: HTTP codes (``"503"``) or ``"connection"``."""


@dataclass
class ModelRequest:
    """Everything a model call needs besides the model's own configuration."""

    messages: list[Message]
    tools: list[dict[str, Any]] | None = None
    """OpenAI function-tool schemas, for native tool calling."""
    stop: list[str] | None = None
    response_format: dict[str, Any] | None = None
    """OpenAI ``response_format`` (a ``json_schema`` for protocol ``json``); see ``OpenAIChatModel`` for fallbacks."""
    temperature: float | None = None
    timeout: float | None = None
    """Seconds the whole call may take (the run's remaining time is folded in)."""
    cancel: CancelToken | None = None
    max_tokens: int | None = None
    """Most tokens the reply may have (sent as ``max_tokens``); None leaves it to the server."""
    extra: dict[str, Any] = field(default_factory=dict)


ModelOutput = TextChunk | Completion


@runtime_checkable
class ChatModel(Protocol):
    """Anything that can answer a list of messages, streaming: yields TextChunks, then one Completion."""

    name: str

    def stream(self, request: ModelRequest) -> Iterator[ModelOutput]:
        """Stream the reply; the last item is always a Completion. Raises ModelError on failure."""
        ...


def complete(model: ChatModel, request: ModelRequest) -> Completion:
    """Run a model call to the end and return only its Completion."""
    for item in model.stream(request):
        if isinstance(item, Completion):
            return item
    raise RuntimeError(f"model {model.name!r} ended its stream without a Completion")


ErrorKind = Literal[
    "config",
    "auth",
    "not_found",
    "connection",
    "timeout",
    "rate_limit",
    "server",
    "bad_request",
    "cancelled",
    "protocol",
]
"""``protocol``: the endpoint answered, but not as an OpenAI-compatible API (a web page, other JSON...)."""


class ModelError(Exception):
    """A model call failed; ``str(error)`` is a complete, human-readable explanation."""

    def __init__(self, kind: ErrorKind, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


def estimate_tokens(text: str) -> int:
    """Roughly 4 characters per token for Latin text and 1 per token for CJK, in O(1) Python steps."""
    if not text:
        return 0
    # ASCII is 1 byte and ~0.25 token per char; CJK is 3 bytes and ~1 token per char.
    return max(1, (3 * len(text.encode("utf-8")) - len(text)) // 8)


def estimate_messages(messages: Iterable[dict[str, Any]]) -> int:
    """Estimated prompt tokens of a message list (content, tool calls, and ~4 tokens per message)."""
    total = 0
    for message in messages:
        total += 4 + estimate_tokens(str(message.get("content") or ""))
        for call in message.get("tool_calls") or ():
            function = call.get("function", {})
            total += estimate_tokens(function.get("name", "")) + estimate_tokens(function.get("arguments", ""))
    return total
