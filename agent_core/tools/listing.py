"""A tool as one compact line for a prompt: ``- name(arg: type, opt?: type = default): description``.

A JSON Schema written out in full costs a model many tokens per tool and per step; the same facts fit in a
signature. Each parameter's own description follows on an indented line; a parameter whose schema is not a
plain type (an object, an array of objects...) keeps its schema as compact JSON, so nothing is lost.
"""

from __future__ import annotations

import json
from typing import Any

from agent_core.tools.tool import Tool

_PLAIN = {"string", "integer", "number", "boolean"}


def signature(tool: Tool) -> str:
    """The tool's listing: its signature and description, then one line per described parameter."""
    properties: dict[str, Any] = tool.parameters.get("properties", {})
    required = set(tool.parameters.get("required", []))
    params = ", ".join(_param(name, schema, name in required) for name, schema in properties.items())
    lines = [f"- {tool.name}({params}): {tool.description}"]
    lines += [f"  {name}: {s['description']}" for name, s in properties.items() if s.get("description")]
    return "\n".join(lines)


def _param(name: str, schema: dict[str, Any], required: bool) -> str:
    text = f"{name}{'' if required else '?'}: {type_of(schema)}"
    if "default" in schema and schema["default"] is not None:
        text += f" = {json.dumps(schema['default'], ensure_ascii=False)}"
    return text


def type_of(schema: dict[str, Any]) -> str:
    """``string``, ``"add"|"subtract"``, ``integer[]``, ``string|null``; else the schema as compact JSON."""
    if "enum" in schema:
        return "|".join(json.dumps(v, ensure_ascii=False) for v in schema["enum"])
    if "anyOf" in schema and all(set(s) <= {"type", "enum", "items"} for s in schema["anyOf"]):
        return "|".join(type_of(s) for s in schema["anyOf"])
    kind = schema.get("type")
    if kind in _PLAIN or kind == "null":
        return str(kind)
    if kind == "array" and set(schema.get("items", {})) <= {"type", "enum"} and schema.get("items"):
        return f"{type_of(schema['items'])}[]"
    rest = {k: v for k, v in schema.items() if k not in ("description", "title", "default")}
    return json.dumps(rest, ensure_ascii=False, separators=(",", ":"))
