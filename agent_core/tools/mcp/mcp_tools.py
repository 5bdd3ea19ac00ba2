"""MCP server tools as Sparrow tools: the server's input schema, validated with jsonschema, called on the server.

Names are ``<server>__<tool>`` (characters other than letters, digits and ``_`` become ``_``; cut to 64 with a
hash when longer); a name already taken (a built-in, a plugin, another server) gets ``_2``, ``_3``… so no two
tools can ever share a name.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from typing import Any

import mcp_types as types
from jsonschema import Draft202012Validator, SchemaError, validators
from pydantic import BaseModel, ConfigDict, Field, create_model

from agent_core.tools.mcp.connection import GRACE, McpServerError, ServerConnection
from agent_core.tools.mcp.mcp_results import to_output
from agent_core.tools.tool import Tool, ToolArgumentsError, ToolError, ToolOutput

MAX_NAME = 64
MAX_DESCRIPTION = 1024
"""Characters of a server's tool description offered to the model."""
_NOT_WORD = re.compile(r"[^A-Za-z0-9_]")


def _placeholder() -> None:
    """Stands in for the remote call (McpTool overrides the call)."""


class McpTool(Tool):
    """One tool of an MCP server, offered under a Sparrow name and called through the server's session."""

    def __init__(self, connection: ServerConnection, spec: types.Tool, name: str) -> None:
        description = " ".join(
            (spec.description or spec.title or f"{spec.name} (MCP server {connection.name})").split()
        )
        super().__init__(
            _placeholder,
            name=name,
            description=description[:MAX_DESCRIPTION],
            needs_approval=not connection.config.trusts(spec.name),
            timeout=connection.config.timeout + 2 * GRACE,
        )
        self.connection = connection
        self.server = connection.name
        """The server's name in the configuration."""
        self.remote_name = spec.name
        """The tool's own name on the server."""
        self.parameters = _object_schema(spec.input_schema)
        self.args_model = _stand_in_model(self.parameters)
        self._validator = _validator(self.parameters)

    def __call__(self, **arguments: Any) -> ToolOutput:
        """Call the remote tool directly (validated), e.g. in a notebook."""
        return self.invoke(arguments)

    @property
    def param_names(self) -> list[str]:
        """Top-level argument names, in schema order."""
        return list(self.parameters.get("properties", {}))

    @property
    def single_param(self) -> str | None:
        """The parameter a bare (non-JSON) input maps onto: the only one, or the only required one."""
        names, required = self.param_names, self.parameters.get("required", [])
        if len(names) == 1:
            return names[0]
        return required[0] if len(required) == 1 else None

    def validate(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """The arguments, if the server's JSON schema accepts them; ToolArgumentsError naming every problem."""
        if self._validator is None:
            return dict(arguments)
        problems = sorted(self._validator.iter_errors(arguments), key=lambda e: list(map(str, e.absolute_path)))
        if problems:
            described = "; ".join(_describe(p) for p in problems[:5])
            raise ToolArgumentsError(f"invalid arguments for {self.name}: {described}")
        return dict(arguments)

    def call_validated(self, kwargs: dict[str, Any]) -> ToolOutput:
        """Call the tool on its server; failures of the server become ToolError (a clear observation)."""
        try:
            result = self.connection.call(self.remote_name, kwargs)
        except McpServerError as exc:
            raise ToolError(str(exc)) from None
        return to_output(self.server, self.remote_name, result)


def tools_of(connection: ServerConnection, taken: Iterable[str]) -> list[McpTool]:
    """The running server's tools, named so that none clashes with ``taken`` or with each other."""
    used = set(taken)
    made: list[McpTool] = []
    connection.tool_names.clear()
    for spec in connection.tools:
        name = tool_name(connection.name, spec.name, used)
        used.add(name)
        made.append(McpTool(connection, spec, name))
        connection.tool_names[name] = spec.name
    return made


def tool_name(server: str, tool: str, taken: set[str] | frozenset[str] = frozenset()) -> str:
    """``<server>__<tool>`` as a valid, unused tool name of at most 64 characters."""
    base = f"{_clean(server)}__{_clean(tool)}"
    if not (base[0].isascii() and (base[0].isalpha() or base[0] == "_")):
        base = f"mcp_{base}"
    if len(base) > MAX_NAME:
        digest = hashlib.sha1(f"{server}\0{tool}".encode()).hexdigest()[:8]
        base = f"{base[: MAX_NAME - 9]}_{digest}"
    name, number = base, 2
    while name in taken:
        suffix = f"_{number}"
        name, number = base[: MAX_NAME - len(suffix)] + suffix, number + 1
    return name


def _clean(part: str) -> str:
    """Letters, digits and ``_`` kept, the rest ``_``; a part with no letter or digit left becomes a short hash."""
    cleaned = _NOT_WORD.sub("_", part)
    if any(c.isalnum() for c in cleaned):
        return cleaned
    return "x" + hashlib.sha1(part.encode()).hexdigest()[:6]


def _object_schema(schema: dict[str, Any] | None) -> dict[str, Any]:
    """The input schema as an object schema with ``properties`` and ``required`` (what the prompts read)."""
    cleaned = {k: v for k, v in (schema or {}).items() if k != "title"}
    cleaned.setdefault("type", "object")
    cleaned.setdefault("properties", {})
    cleaned.setdefault("required", [])
    return cleaned


def _stand_in_model(schema: dict[str, Any]) -> type[BaseModel]:
    """A pydantic model mirroring the top-level parameters (names as aliases: they need not be identifiers).

    Only its fields' required flags and aliases are read (by the ReAct parser); validation uses the JSON schema.
    """
    required = set(schema.get("required", []))
    fields: dict[str, Any] = {}
    for index, (name, spec) in enumerate(schema.get("properties", {}).items()):
        description = spec.get("description") if isinstance(spec, dict) else None
        default = ... if name in required else None
        fields[f"p{index}"] = (Any, Field(default, alias=name, description=description))
    return create_model("mcp_arguments", __config__=ConfigDict(extra="allow"), **fields)


def _validator(schema: dict[str, Any]) -> Any:
    """A jsonschema validator for the schema, or None when the server's schema is itself invalid."""
    cls = validators.validator_for(schema, default=Draft202012Validator)
    try:
        cls.check_schema(schema)
    except SchemaError:
        return None
    return cls(schema)


def _describe(error: Any) -> str:
    where = ".".join(str(p) for p in error.absolute_path)
    return f"{where}: {error.message}" if where else str(error.message)
