"""An owner's MCP servers and their tools: each server's tools offered as Sparrow tools, and their results.

``McpServers`` holds one connection per configured server for its owner (the CLI command, or the process), shared
by every catalogue and run of that owner and closed with it (``process_resources``): building a catalogue starts
the servers it needs (all at once) and lists their tools; building it again with the same settings reuses the
running servers, and a server whose settings changed is restarted. Each tool is an ``McpTool`` named
``<server>__<tool>`` (characters other than letters, digits and ``_`` become ``_``; cut to 64 with a hash when
longer; a name already taken gets ``_2``, ``_3``…, so no two tools share a name), validated against the server's
input schema with jsonschema and called on the server. Its result becomes an observation: text as is, structured
content as JSON, images, audio and binary resources described but never passed on (nor fetched), resource links
as plain text; an ``isError`` result is a ToolError, so it reads as a failed call.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import threading
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from contextlib import suppress
from typing import Any

import mcp_types as types
from jsonschema import Draft202012Validator, SchemaError, validators
from pydantic import BaseModel, ConfigDict, Field, create_model

from agent_core.process_resources import resources
from agent_core.tools.mcp.config import (
    DISABLED,
    FixedServer,
    McpConfig,
    McpTools,
    ServerConfig,
    ServerHandle,
    ServerStatus,
)
from agent_core.tools.mcp.connection import CLOSE_TIMEOUT, GRACE, LoopThread, McpServerError, ServerConnection
from agent_core.tools.tool import Tool, ToolArgumentsError, ToolError, ToolOutput, bare_input_param


class McpServers:
    """Connections by server name; ``tools(config, taken)`` starts what is needed and builds the tools."""

    def __init__(self) -> None:
        self._loop = LoopThread()
        self._connections: dict[str, ServerConnection] = {}
        self._lock = threading.Lock()

    def connection(self, name: str, config: ServerConfig) -> ServerConnection:
        """The connection for ``name`` with these settings (a new one if the settings changed)."""
        with self._lock:
            current = self._connections.get(name)
            if current is not None and current.config == config:
                return current
            fresh = self._connections[name] = ServerConnection(name, config, self._loop)
        if current is not None:
            current.retired = True  # tools still holding it must not bring the old settings back
            current.close()
        return fresh

    def tools(self, config: McpConfig, taken: Iterable[str]) -> McpTools:
        """Start the enabled servers of ``config`` (in parallel), and their tools with unique names."""
        handles: list[ServerHandle] = []
        wanted: list[ServerConnection] = []
        for name, server in config.servers.items():
            if server.disabled:
                handles.append(FixedServer(name, _disabled(name, server)))
            else:
                wanted.append(self.connection(name, server))
                handles.append(wanted[-1])
        problems = _start_all(wanted)
        used = set(taken)
        tools: list[McpTool] = []
        for connection in wanted:
            if connection.name not in problems:
                made = tools_of(connection, used)
                used.update(t.name for t in made)
                tools += made
        origins = {t.name: f"mcp:{t.server}" for t in tools}
        errors = (*config.errors, *problems.values())
        return McpTools(tuple(tools), origins, errors, tuple(handles))

    def close(self) -> None:
        """Stop every server, then the event loop."""
        with self._lock:
            connections, self._connections = list(self._connections.values()), {}
        if connections and self._loop.running:
            with suppress(TimeoutError):  # a server that ignores every signal is left to the OS
                self._loop.run(_close_all(connections), CLOSE_TIMEOUT + GRACE)
        self._loop.stop()


async def _close_all(connections: list[ServerConnection]) -> None:
    await asyncio.gather(*(c.aclose() for c in connections), return_exceptions=True)


def _start_all(connections: list[ServerConnection]) -> dict[str, str]:
    """Start each connection (in parallel); server name -> why it failed."""

    def start(connection: ServerConnection) -> str | None:
        try:
            connection.start()
        except McpServerError as exc:
            return str(exc)
        return None

    if not connections:
        return {}
    with ThreadPoolExecutor(len(connections), thread_name_prefix="sparrow-mcp-start") as pool:
        outcomes = list(pool.map(start, connections))
    return {c.name: why for c, why in zip(connections, outcomes, strict=True) if why}


def _disabled(name: str, server: ServerConfig) -> ServerStatus:
    return ServerStatus(name, server.transport, server.target, DISABLED, server.trust)


def shared_servers() -> McpServers:
    """The servers of the current owner (started on first use, stopped when the owner closes)."""
    return resources().get("MCP servers", McpServers, McpServers.close)


# --- the tools -----------------------------------------------------------------------------------------------------

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
        self._names = tuple(self.parameters["properties"])  # top-level argument names, in schema order
        self._single = bare_input_param(self._names, self.parameters["required"])
        self._validator = _validator(self.parameters)

    def __call__(self, **arguments: Any) -> ToolOutput:
        """Call the remote tool directly (validated), e.g. in a notebook."""
        return self.invoke(arguments)

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


# --- their results -------------------------------------------------------------------------------------------------

MAX_RESOURCE_TEXT = 4000
"""Characters of an embedded text resource kept in the observation."""


def to_output(server: str, tool: str, result: types.CallToolResult) -> ToolOutput:
    """The observation and details for one result; ToolError when the server reports the call failed."""
    structured = result.structured_content
    texts = [_block_text(block) for block in result.content]
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


def _block_text(block: Any) -> str:
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
            media.append({"type": str(block.type), "description": _block_text(block).split("\n", 1)[0]})
    return media
