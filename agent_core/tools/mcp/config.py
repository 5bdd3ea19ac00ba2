"""MCP servers as configured and as they stand: the ``mcpServers`` JSON, where to find it, and status lines.

The file is found, in this order, at ``--mcp-config FILE`` (the CLI), ``$SPARROW_MCP_CONFIG``, or in the working
directory as ``mcp.json``, ``.mcp.json`` (Claude Code's project file) or ``.cursor/mcp.json`` (Cursor's), the first
that exists. Each server is either a local command spoken to over stdio::

    {"mcpServers": {"time": {"command": "mcp-server-time", "args": [], "env": {}, "cwd": "."}}}

or a remote server over streamable HTTP: ``{"url": "https://…/mcp", "headers": {"Authorization": "Bearer …"}}``
(``"type": "sse"`` for one that speaks the older HTTP+SSE transport). ``autoApprove`` (Cline, Roo) lists tools that
run without asking; Sparrow's own keys: ``trust`` (true: all its tools run without asking; default false),
``timeout`` (seconds per call, default 30), ``startupTimeout`` (seconds to start and list tools, default 30) and
``disabled``. ``${VAR}``, ``${env:VAR}`` and ``${VAR:-default}`` in ``command``, ``args``, ``url``, ``env`` and
``headers`` are replaced by that environment variable (or the default), so secrets need not live in the file.
Other keys tools add are ignored. ``ServerStatus`` is what the Tools page and ``python -m agent_core tools`` show
about each server; nothing here needs the SDK.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from agent_core.env_settings import env_settings
from agent_core.guards import json_limits
from agent_core.tools.tool import Tool

CONFIG_ENV = "SPARROW_MCP_CONFIG"
DEFAULT_FILE = "mcp.json"
PROJECT_FILES = (DEFAULT_FILE, ".mcp.json", ".cursor/mcp.json")
"""Looked for in the working directory, in this order: Sparrow's, Claude Code's, Cursor's."""
_VARIABLE = re.compile(r"\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
_TYPES = {None: None, "stdio": "stdio", "sse": "sse"} | dict.fromkeys(
    ("http", "streamable-http", "streamableHttp"), "http"
)


class McpConfigError(ValueError):
    """The MCP configuration file is missing, unreadable or malformed; the message says where and why."""


class ServerConfig(BaseModel):
    """One entry of ``mcpServers``: a stdio command or a streamable-HTTP URL, and how far to trust it."""

    model_config = ConfigDict(extra="ignore", frozen=True, populate_by_name=True)

    command: str | None = None
    """Executable that starts the server (stdio)."""
    args: tuple[str, ...] = ()
    """Its command-line arguments."""
    env: dict[str, str] = Field(default_factory=dict)
    """Extra environment variables for the process (over a minimal safe set: PATH, HOME…)."""
    cwd: str | None = None
    """Working directory of the process (relative paths are relative to the config file)."""
    url: str | None = None
    """Endpoint of a remote server (streamable HTTP)."""
    headers: dict[str, str] = Field(default_factory=dict)
    """HTTP headers sent with every request (e.g. Authorization)."""
    type: str | None = None
    """Optional transport hint other tools write: ``stdio``, ``http``, ``streamable-http`` or ``sse``."""
    trust: bool = False
    """True: the server's tools run without asking for approval."""
    timeout: float = Field(30.0, gt=0)
    """Seconds one tool call may take before it is cancelled."""
    startup_timeout: float = Field(30.0, gt=0, alias="startupTimeout")
    """Seconds to start the server and list its tools."""
    disabled: bool = False
    """True: listed but not started."""
    auto_approve: tuple[str, ...] = Field((), alias="autoApprove")
    """The server's own names of tools that run without asking for approval (the rest still ask)."""

    @model_validator(mode="after")
    def _one_transport(self) -> ServerConfig:
        if bool(self.command) == bool(self.url):
            raise ValueError("give either 'command' (a local server over stdio) or 'url' (streamable HTTP), not both")
        if self.type not in _TYPES:
            raise ValueError(f"transport type {self.type!r} is not supported; use stdio, http (streamable) or sse")
        if self.command and _TYPES[self.type] not in (None, "stdio"):
            raise ValueError(f"type {self.type!r} needs a 'url', not a 'command'")
        if self.url and not self.disabled and not self.url.startswith(("http://", "https://")):
            raise ValueError(f"url {self.url!r} must start with http:// or https://")
        return self

    @property
    def transport(self) -> str:
        """``stdio``, ``http`` (streamable HTTP) or ``sse`` (the older HTTP+SSE transport, or a url ending /sse)."""
        if self.command:
            return "stdio"
        sse = self.type == "sse" or (self.type is None and str(self.url).split("?")[0].rstrip("/").endswith("/sse"))
        return "sse" if sse else "http"  # Cursor users write an SSE server as a bare url ending in /sse

    def trusts(self, tool: str) -> bool:
        """True when the tool named ``tool`` (on the server) runs without asking for approval."""
        return self.trust or tool in self.auto_approve

    @property
    def target(self) -> str:
        """What is started or reached, for status lines: the command line or the URL (never env or headers)."""
        return " ".join([self.command or "", *self.args]) if self.command else str(self.url)


@dataclass(frozen=True)
class McpConfig:
    """The servers of one configuration file, and the entries that could not be read."""

    servers: dict[str, ServerConfig]
    """Server name -> its settings, in file order."""
    errors: tuple[str, ...] = ()
    """One sentence per entry that was skipped."""
    source: str = ""
    """Where the configuration came from (a path)."""


def find_config(
    explicit: str | os.PathLike[str] | None = None, environ: Mapping[str, str] | None = None
) -> Path | None:
    """The configuration file to use: ``explicit``, then $SPARROW_MCP_CONFIG, then the project files; else None."""
    for given, label in ((explicit, "--mcp-config"), (env_settings(environ).sparrow_mcp_config, CONFIG_ENV)):
        if given:
            path = Path(given).expanduser()
            if not path.is_file():
                raise McpConfigError(f"{label} names {str(path)!r}, which is not a file")
            return path
    return next((p for name in PROJECT_FILES if (p := Path.cwd() / name).is_file()), None)


def load_config(path: str | os.PathLike[str], environ: Mapping[str, str] | None = None) -> McpConfig:
    """Read an ``mcpServers`` file; McpConfigError if the file is unusable, per-entry errors kept in the result."""
    where = Path(path)
    try:
        data = json_limits.loads(where.read_text(encoding="utf-8"))
    except OSError as exc:
        raise McpConfigError(f"cannot read MCP config {str(where)!r}: {exc.strerror or exc}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise McpConfigError(f"MCP config {str(where)!r} is not valid JSON: {exc}") from None
    return parse_config(data, source=str(where), base=where.parent, environ=environ)


def parse_config(
    data: Any, *, source: str = "", base: Path | None = None, environ: Mapping[str, str] | None = None
) -> McpConfig:
    """Validate already-decoded JSON; each bad server entry becomes an error and the others still load."""
    entries = data.get("mcpServers") if isinstance(data, dict) else None
    if not isinstance(entries, dict):
        raise McpConfigError(f"MCP config {source!r} needs an object 'mcpServers' mapping server names to settings")
    servers: dict[str, ServerConfig] = {}
    errors: list[str] = []
    for name, entry in entries.items():
        try:
            servers[name] = _server(name, entry, base, os.environ if environ is None else environ)
        except McpConfigError as exc:
            errors.append(str(exc))
    return McpConfig(servers, tuple(errors), source)


def _server(name: str, entry: Any, base: Path | None, environ: Mapping[str, str]) -> ServerConfig:
    if not name.strip():
        raise McpConfigError("MCP server names must not be empty")
    if not isinstance(entry, dict):
        raise McpConfigError(f"MCP server {name!r}: its settings must be a JSON object")
    if entry.get("disabled") is not True:  # a server that is off need not have its ${VARIABLES} set
        entry = _expanded(entry, name, environ)
    try:
        server = ServerConfig.model_validate(entry)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ()))
        message = first.get("msg", "invalid value").removeprefix("Value error, ")
        raise McpConfigError(f"MCP server {name!r}: {where + ': ' if where else ''}{message}") from None
    cwd = str((base / server.cwd) if base is not None else server.cwd) if server.cwd else None
    return server.model_copy(update={"cwd": cwd})


def _expanded(entry: dict[str, Any], server: str, environ: Mapping[str, str]) -> dict[str, Any]:
    """The entry with ``${VAR}`` replaced in command, args, url and the values of env and headers."""
    out = dict(entry)
    for key in ("command", "url"):
        if isinstance(out.get(key), str):
            out[key] = _expand(out[key], server, environ)
    if isinstance(out.get("args"), list):
        out["args"] = [_expand(a, server, environ) if isinstance(a, str) else a for a in out["args"]]
    for key in ("env", "headers"):
        if isinstance(out.get(key), dict):
            out[key] = {k: _expand(v, server, environ) if isinstance(v, str) else v for k, v in out[key].items()}
    return out


def _expand(value: str, server: str, environ: Mapping[str, str]) -> str:
    def lookup(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        if environ.get(name):
            return environ[name]
        if default is not None:  # ${VAR:-default}: unset or empty, as in the shell
            return default
        if name in environ:
            return ""
        raise McpConfigError(f"MCP server {server!r}: the environment variable {name} is not set")

    return _VARIABLE.sub(lookup, value)


# --- how each server stands ----------------------------------------------------------------------------------------

NOT_STARTED, STARTING, RUNNING, FAILED, STOPPED, DISABLED, UNAVAILABLE = (
    "not started",
    "starting",
    "running",
    "failed",
    "stopped",
    "disabled",
    "unavailable",
)


@dataclass(frozen=True)
class ServerStatus:
    """One server as it is now."""

    name: str
    """Its key in ``mcpServers``."""
    transport: str
    """``stdio`` or ``http``."""
    target: str
    """The command line or the URL (never its environment or headers)."""
    state: str
    """``running``, ``failed`` (could not start), ``stopped`` (exited; restarts on the next call), ``disabled``…"""
    trusted: bool = False
    """True: its tools run without asking for approval."""
    tools: tuple[tuple[str, str], ...] = ()
    """(name in Sparrow, name on the server) for each of its tools."""
    problem: str | None = None
    """Why it failed or stopped, one sentence."""
    start_ms: float | None = None
    """How long starting it and listing its tools took."""

    def line(self) -> str:
        """One status line, e.g. ``time [stdio: mcp-server-time] running, 2 tools, started in 610 ms``."""
        parts = [f"{self.name} [{self.transport}: {self.target}] {self.state}"]
        if self.state == RUNNING:
            parts.append(f"{len(self.tools)} tool{'' if len(self.tools) == 1 else 's'}")
            if self.start_ms is not None:
                parts.append(f"started in {self.start_ms:.0f} ms")
            parts.append("trusted" if self.trusted else "asks for approval")
        text = ", ".join(parts)
        return f"{text}: {self.problem}" if self.problem else text


class ServerHandle(Protocol):
    """Anything that can report a server's current status (a live connection, or a fixed one)."""

    @property
    def name(self) -> str:
        """The server's configured name."""
        ...

    def status(self) -> ServerStatus:
        """The server's status right now."""
        ...


@dataclass(frozen=True)
class FixedServer:
    """A configured server that is not connected (disabled, or the SDK is missing): its status never changes."""

    name: str
    fixed: ServerStatus

    def status(self) -> ServerStatus:
        """The status it was given."""
        return self.fixed


@dataclass(frozen=True)
class McpTools:
    """What the configured servers contribute to a catalogue."""

    tools: tuple[Tool, ...] = ()
    origins: dict[str, str] = field(default_factory=dict)
    """Tool name -> ``mcp:<server>``."""
    errors: tuple[str, ...] = ()
    """Configuration problems and servers that failed to start, one sentence each."""
    servers: tuple[ServerHandle, ...] = ()
    """Every configured server, for status lines (live: a server that stops later shows it)."""
