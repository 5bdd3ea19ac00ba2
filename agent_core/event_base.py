"""The base every event shares (its type tag, run id and time), token usage, and fields added later.

Split from :mod:`agent_core.events` (which re-exports all of it) so that groups of event classes can
live in modules of their own; the closed union of every event stays in ``events``.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field
from functools import cache
from typing import Any


@dataclass(frozen=True)
class Usage:
    """Token usage of one model call (or a sum of several)."""

    prompt_tokens: int = 0
    """Tokens sent to the model."""
    completion_tokens: int = 0
    """Tokens the model wrote."""
    estimated: bool = False
    """True when the provider sent no usage and the numbers are Sparrow's estimate."""
    cached_tokens: int = field(default=0, metadata={"later": True})
    """Of ``prompt_tokens``, those the provider read from its prompt cache (billed at the cached-input rate)."""
    reasoning_tokens: int = field(default=0, metadata={"later": True})
    """Of ``completion_tokens``, those the model spent reasoning (billed as output, often not shown)."""

    @property
    def total_tokens(self) -> int:
        """Prompt plus completion tokens."""
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            self.estimated or other.estimated,
            self.cached_tokens + other.cached_tokens,
            self.reasoning_tokens + other.reasoning_tokens,
        )


LATER = {"later": True}
"""Field metadata of a field added after the log format was fixed: left out of ``to_dict`` while it holds its
default, so logs do not grow by an empty key per event and files stay readable by earlier versions."""


@cache
def later_fields(cls: type) -> tuple[tuple[str, Any], ...]:
    """The ``LATER`` fields of an event class, with their defaults."""
    return tuple((f.name, f.default) for f in dataclasses.fields(cls) if f.metadata.get("later"))


def without_unset(fields: dict[str, Any], cls: type) -> dict[str, Any]:
    """``fields`` without the ``LATER`` fields that hold their default (the dict itself, changed)."""
    for name, default in later_fields(cls):
        if fields.get(name) == default or fields.get(name) == plain(default):
            del fields[name]
    return fields


@dataclass(frozen=True, kw_only=True)
class EventBase:
    """Base of every event: its type tag, which run it belongs to and when it happened."""

    type: str = field(default="event", init=False)
    """The tag that tells the events apart (``run_started``, ``tool_finished``...); set by each class."""
    run_id: str
    """The run (one question and its answer) this event belongs to."""
    ts: float = field(default_factory=time.time)
    """Unix time at which the event was emitted."""

    def to_dict(self) -> dict[str, Any]:
        """Plain, JSON-ready dict with a ``type`` discriminator (a ``LATER`` field only when it is set)."""
        return without_unset({f.name: plain(getattr(self, f.name)) for f in dataclasses.fields(self)}, type(self))


def plain(value: Any) -> Any:
    """A JSON-ready copy: dataclasses become dicts, tuples become lists."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return without_unset({f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}, type(value))
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    return value
