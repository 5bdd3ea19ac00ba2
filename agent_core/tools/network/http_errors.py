"""The failures of an HTTP request for tools, each a plain sentence, and the observation a model reads for one."""

from __future__ import annotations

from agent_core.tools.tool import ToolError


class HttpError(Exception):
    """A request failed before a usable answer arrived; the message says why in plain words."""


class NetworkError(HttpError):
    """No connection could be made: no network, unknown host, connection refused, TLS failure."""


class HttpTimeout(HttpError):
    """The server (or the name lookup) did not answer before the deadline."""


class HttpStatusError(HttpError):
    """The server answered with an HTTP error status (4xx or 5xx)."""

    def __init__(self, message: str, *, status: int, body: bytes = b"") -> None:
        super().__init__(message)
        self.status = status
        self.body = body


class BlockedAddress(HttpError):
    """The address policy (SSRF guard) refused to connect to a host."""


class InvalidURL(HttpError):
    """The URL cannot be requested (bad syntax, scheme other than http/https, credentials...)."""


class BadResponse(HttpError):
    """The answer arrived but cannot be used: invalid JSON, broken HTTP, too many redirects, too large."""


def tool_error(service: str, exc: HttpError) -> ToolError:
    """The observation for a failed request: '<service> unavailable: ...', '... refused: ...' or '... failed: ...'."""
    if isinstance(exc, NetworkError | HttpTimeout):
        verb = "unavailable"
    elif isinstance(exc, BlockedAddress | InvalidURL):
        verb = "refused"
    else:
        verb = "failed"
    return ToolError(f"{service} {verb}: {exc}")


def os_reason(exc: BaseException) -> str:
    """The OS error text of ``exc`` in lower case ("connection refused"), or its message."""
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror[0].lower() + exc.strerror[1:]
    return str(exc) or type(exc).__name__
