"""What the Tools page and ``python -m agent_core tools`` show about each MCP server (no SDK needed here)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from agent_core.tools.tool import Tool

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
