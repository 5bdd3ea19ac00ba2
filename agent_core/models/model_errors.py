"""Model errors with a kind and a message meant for people, never a raw traceback."""

from __future__ import annotations

from typing import Literal

ErrorKind = Literal[
    "config",
    "auth",
    "not_found",
    "connection",
    "timeout",
    "rate_limit",
    "server",
    "bad_request",
    "cancelled",
    "protocol",
]
"""``protocol``: the endpoint answered, but not as an OpenAI-compatible API (a web page, other JSON...)."""


class ModelError(Exception):
    """A model call failed; ``str(error)`` is a complete, human-readable explanation."""

    def __init__(self, kind: ErrorKind, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
