"""Endpoints that are not what they claim: one sentence naming the likely cause, never a parse traceback.

A base URL that serves a web page, JSON that is not a chat completion, an empty ``choices`` list or a
stream with invalid JSON all end the call at once (no retries) with a :class:`ModelError` of kind
``protocol`` whose message says what the URL returned and what to check.
"""

from __future__ import annotations

import json
from typing import Any

from openai.types.chat import ChatCompletionChunk

from agent_core.guards import json_limits
from agent_core.models.chat import ModelError

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
