"""OpenInference attributes (read by Arize Phoenix and others), set on the spans beside the GenAI conventions.

The run span is an ``AGENT`` span, each model call an ``LLM`` span and each tool call a ``TOOL`` span; every
span carries ``session.id`` when the run belongs to a session. Names, token counts, tool names and schemas
are always set. What people wrote or read — ``input.value`` / ``output.value``, the flattened
``llm.input_messages`` / ``llm.output_messages`` and the tool arguments and results — only with
``content=True``, the same opt-in as the GenAI conventions' message content.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from agent_core.events import ModelFinished, ToolFinished, ToolStarted

Attributes = dict[str, str | bool | int | float | tuple[str, ...] | None]
"""Attribute values before the ``None`` ones are left out."""

TEXT, JSON = "text/plain", "application/json"
"""``input.mime_type`` / ``output.mime_type`` values."""

_PROVIDERS = {"gcp.gemini": "google", "mistral_ai": "mistralai", "moonshot_ai": "moonshot", "x_ai": "xai"}
"""GenAI ``gen_ai.provider.name`` values whose OpenInference ``llm.provider`` name differs."""

_PREFIXES = ("openinference.", "agent.", "session.", "llm.", "tool.", "input.", "output.")


def is_openinference(key: str) -> bool:
    """True for an attribute this module sets (as opposed to a GenAI convention or ``sparrow.`` one)."""
    return key.startswith(_PREFIXES)


def agent_attributes(
    *, agent_name: str, session_id: str | None, question: str | None, answer: str | None, content: bool
) -> Attributes:
    """The run span: an AGENT span, with the question and the answer as its input and output when allowed."""
    attributes: Attributes = {"openinference.span.kind": "AGENT", "agent.name": agent_name, "session.id": session_id}
    if content:
        attributes.update(_value("input", question, TEXT))
        attributes.update(_value("output", answer, TEXT))
    return attributes


def llm_attributes(
    m: ModelFinished,
    *,
    model: str,
    provider: str,
    session_id: str | None,
    parameters: Mapping[str, Any],
    tools: Sequence[Mapping[str, Any]],
    content: bool,
) -> Attributes:
    """A model call: an LLM span with model, provider, token counts and (when allowed) the messages."""
    attributes: Attributes = {
        "openinference.span.kind": "LLM",
        "session.id": session_id,
        "llm.model_name": model,
        "llm.provider": _PROVIDERS.get(provider, provider),
        "llm.system": "openai",  # the API Sparrow speaks to every provider
        "llm.token_count.prompt": m.usage.prompt_tokens,
        "llm.token_count.completion": m.usage.completion_tokens,
        "llm.token_count.total": m.usage.total_tokens,
        "llm.invocation_parameters": _json(dict(parameters)),
    }
    if m.usage.cached_tokens:
        attributes["llm.token_count.prompt_details.cache_read"] = m.usage.cached_tokens
    if m.usage.reasoning_tokens:
        attributes["llm.token_count.completion_details.reasoning"] = m.usage.reasoning_tokens
    if content:
        attributes.update(_value("input", _json({"messages": list(m.messages)}), JSON))
        output, mime_type = (m.text, TEXT) if m.text or not m.tool_calls else (_json(list(m.tool_calls)), JSON)
        attributes.update(_value("output", output or None, mime_type))
        for index, message in enumerate(m.messages):
            attributes.update(_message(f"llm.input_messages.{index}", message))
        attributes.update(_output_message(m))
        for index, schema in enumerate(tools):
            attributes[f"llm.tools.{index}.tool.json_schema"] = _json(schema)
    return attributes


def tool_attributes(
    begun: ToolStarted | None,
    done: ToolFinished | None,
    *,
    session_id: str | None,
    schema: Mapping[str, Any] | None,
    content: bool,
) -> Attributes:
    """A tool call: a TOOL span with the tool's name, description and parameters, and (when allowed) its I/O."""
    either = done or begun
    assert either is not None
    function = (schema or {}).get("function", {})
    attributes: Attributes = {
        "openinference.span.kind": "TOOL",
        "session.id": session_id,
        "tool.name": either.tool,
        "tool.id": either.call_id,
        "tool.description": function.get("description"),
        "tool.parameters": _json(function["parameters"]) if "parameters" in function else None,
    }
    if content:
        if begun is not None:
            attributes.update(_value("input", _json(begun.arguments), JSON))
        if done is not None:
            attributes.update(_value("output", done.error or done.output, TEXT))
    return attributes


def _value(side: str, value: str | None, mime_type: str) -> Attributes:
    if value is None:
        return {}
    return {f"{side}.value": value, f"{side}.mime_type": mime_type}


def _message(prefix: str, message: Mapping[str, Any]) -> Attributes:
    """One chat message as OpenInference's flattened ``message.*`` attributes."""
    attributes: Attributes = {
        f"{prefix}.message.role": str(message.get("role", "user")),
        f"{prefix}.message.content": _text(message.get("content")),
        f"{prefix}.message.tool_call_id": message.get("tool_call_id"),
    }
    for index, call in enumerate(message.get("tool_calls") or ()):
        function = call.get("function", {}) if isinstance(call, Mapping) else {}
        attributes.update(_tool_call(f"{prefix}.message.tool_calls.{index}", call.get("id"), function))
    return attributes


def _output_message(m: ModelFinished) -> Attributes:
    prefix = "llm.output_messages.0"
    attributes: Attributes = {f"{prefix}.message.role": "assistant", f"{prefix}.message.content": m.text or None}
    for index, call in enumerate(m.tool_calls):
        attributes.update(_tool_call(f"{prefix}.message.tool_calls.{index}", call.get("id"), call))
    return attributes


def _tool_call(prefix: str, call_id: Any, function: Mapping[str, Any]) -> Attributes:
    arguments = function.get("arguments")
    return {
        f"{prefix}.tool_call.id": str(call_id) if call_id else None,
        f"{prefix}.tool_call.function.name": function.get("name"),
        f"{prefix}.tool_call.function.arguments": arguments if isinstance(arguments, str) else _json(arguments),
    }


def _text(content: Any) -> str | None:
    """Message content as text: multi-part content keeps its text parts."""
    if content is None or isinstance(content, str):
        return content or None
    if isinstance(content, Sequence):
        parts = [str(p.get("text", "")) for p in content if isinstance(p, Mapping) and p.get("type") == "text"]
        return "\n".join(parts) or None
    return str(content)


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)
