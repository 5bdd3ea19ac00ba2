"""MCP server settings: the ``mcpServers`` JSON that Claude Desktop, Cursor and others keep, and where to find it.

The file is found, in this order, at ``--mcp-config FILE`` (the CLI), ``$SPARROW_MCP_CONFIG``, or ``mcp.json`` in
the working directory. Each server is either a local command spoken to over stdio::

    {"mcpServers": {"time": {"command": "mcp-server-time", "args": [], "env": {}, "cwd": "."}}}

or a remote server over streamable HTTP: ``{"url": "https://…/mcp", "headers": {"Authorization": "Bearer …"}}``.
Sparrow's own keys: ``trust`` (true: its tools run without asking for approval; default false), ``timeout``
(seconds per call, default 30), ``startupTimeout`` (seconds to start and list tools, default 30) and ``disabled``.
``${VAR}`` (or ``${env:VAR}``) in ``env`` values and ``headers`` is replaced by that environment variable, so
secrets need not live in the file. Keys other tools add (``autoApprove``…) are ignored.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from agent_core import json_limits

CONFIG_ENV = "SPARROW_MCP_CONFIG"
DEFAULT_FILE = "mcp.json"
_VARIABLE = re.compile(r"\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)\}")


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
    """Optional transport hint other tools write: ``stdio``, ``http`` or ``streamable-http``."""
    trust: bool = False
    """True: the server's tools run without asking for approval."""
    timeout: float = Field(30.0, gt=0)
    """Seconds one tool call may take before it is cancelled."""
    startup_timeout: float = Field(30.0, gt=0, alias="startupTimeout")
    """Seconds to start the server and list its tools."""
    disabled: bool = False
    """True: listed but not started."""

    @model_validator(mode="after")
    def _one_transport(self) -> ServerConfig:
        if bool(self.command) == bool(self.url):
            raise ValueError("give either 'command' (a local server over stdio) or 'url' (streamable HTTP), not both")
        if self.type not in (None, "stdio", "http", "streamable-http", "streamableHttp"):
            raise ValueError(f"transport type {self.type!r} is not supported; use stdio or streamable HTTP")
        if self.url and not self.url.startswith(("http://", "https://")):
            raise ValueError(f"url {self.url!r} must start with http:// or https://")
        return self

    @property
    def transport(self) -> str:
        """``stdio`` or ``http``."""
        return "stdio" if self.command else "http"

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
    """The configuration file to use: ``explicit``, then $SPARROW_MCP_CONFIG, then ./mcp.json; None if none."""
    env = os.environ if environ is None else environ
    for given, label in ((explicit, "--mcp-config"), (env.get(CONFIG_ENV) or None, CONFIG_ENV)):
        if given:
            path = Path(given).expanduser()
            if not path.is_file():
                raise McpConfigError(f"{label} names {str(path)!r}, which is not a file")
            return path
    default = Path.cwd() / DEFAULT_FILE
    return default if default.is_file() else None


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
    try:
        server = ServerConfig.model_validate(entry)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ()))
        message = first.get("msg", "invalid value").removeprefix("Value error, ")
        raise McpConfigError(f"MCP server {name!r}: {where + ': ' if where else ''}{message}") from None
    if server.disabled:
        return server  # its ${VARIABLES} need not be set while it is off
    env = {k: _expand(v, name, environ) for k, v in server.env.items()}
    headers = {k: _expand(v, name, environ) for k, v in server.headers.items()}
    cwd = str((base / server.cwd) if base is not None and server.cwd else server.cwd) if server.cwd else None
    return server.model_copy(update={"env": env, "headers": headers, "cwd": cwd})


def _expand(value: str, server: str, environ: Mapping[str, str]) -> str:
    def lookup(match: re.Match[str]) -> str:
        if match.group(1) not in environ:
            raise McpConfigError(f"MCP server {server!r}: the environment variable {match.group(1)} is not set")
        return environ[match.group(1)]

    return _VARIABLE.sub(lookup, value)
