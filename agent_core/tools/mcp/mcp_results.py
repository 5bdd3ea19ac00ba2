"""An MCP tool result as an observation: text as is, structured content as JSON, media and resources described.

Images, audio and binary resources are never passed on (nor fetched): the observation says what they were, and
resource links are given as plain text. An ``isError`` result becomes a ToolError, so it reads as a failed call.
"""

from __future__ import annotations

import json
from typing import Any

import mcp_types as types

from agent_core.tools.tool import ToolError, ToolOutput

MAX_RESOURCE_TEXT = 4000
"""Characters of an embedded text resource kept in the observation."""


def to_output(server: str, tool: str, result: types.CallToolResult) -> ToolOutput:
    """The observation and details for one result; ToolError when the server reports the call failed."""
    structured = result.structured_content
    texts = [_describe(block) for block in result.content]
    if result.is_error:
        reason = " ".join(t for t in texts if t) or "no reason given"
        raise ToolError(f"MCP server {server!r} reports an error from {tool}: {reason}")
    if structured is not None:
        # Servers also send the same JSON as a text block (for older clients): keep only the other blocks.
        extra = [text for block, text in zip(result.content, texts, strict=True) if block.type != "text"]
        body = json.dumps(structured, ensure_ascii=False, default=str)
        return ToolOutput("\n".join([body, *extra]), structured)
    content = "\n".join(t for t in texts if t)
    return ToolOutput(content or f"({tool} returned no content)", _media(result.content) or None)


def _describe(block: Any) -> str:
    kind = getattr(block, "type", "")
    if kind == "text":
        return str(block.text)
    if kind in ("image", "audio"):
        return f"[{kind}: {block.mime_type}, {_size(block.data)}; not shown]"
    if kind == "resource_link":
        title = block.title or block.name
        mime = f", {block.mime_type}" if block.mime_type else ""
        return f"[resource link: {title} <{block.uri}>{mime}]"
    if kind == "resource":
        return _resource(block.resource)
    return f"[{kind or 'unknown'} content; not shown]"


def _resource(resource: Any) -> str:
    mime = f", {resource.mime_type}" if getattr(resource, "mime_type", None) else ""
    text = getattr(resource, "text", None)
    if isinstance(text, str):
        clipped = text if len(text) <= MAX_RESOURCE_TEXT else text[:MAX_RESOURCE_TEXT] + " […]"
        return f"[resource <{resource.uri}>{mime}]\n{clipped}"
    return f"[resource <{resource.uri}>{mime}, {_size(getattr(resource, 'blob', ''))}; not shown]"


def _size(data: str) -> str:
    """The decoded size of base64 ``data``, readable."""
    data = data or ""
    count = len(data) * 3 // 4 - (len(data) - len(data.rstrip("=")))
    return f"{count} bytes" if count < 1024 else f"{count / 1024:.1f} kB"


def _media(blocks: list[Any]) -> list[dict[str, str]]:
    """Descriptions of the non-text blocks, for the UI (no data, no fetching)."""
    media = []
    for block in blocks:
        if getattr(block, "type", "text") != "text":
            media.append({"type": str(block.type), "description": _describe(block).split("\n", 1)[0]})
    return media
