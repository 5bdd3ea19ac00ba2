"""Token estimates for providers that send no usage (marked ``estimated`` wherever shown)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


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
