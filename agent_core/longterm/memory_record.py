"""A saved memory as listed, searched and recalled, and the scope names: no database in here (the tools need it)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from agent_core.env_settings import env_settings
from agent_core.longterm.memory_guard import MemoryRefused

DEFAULT_SCOPE = "default"
_SCOPE = re.compile(r"^[\w.@:-]{1,64}$")


class MemoryNotFound(LookupError):
    """No memory has this id (in this scope)."""


@dataclass(frozen=True)
class MemoryRecord:
    """One saved fact, as listed, searched and recalled."""

    id: int
    scope: str
    text: str
    created_at: float
    """Unix time it was saved."""
    origin: str = "user"
    """``agent`` (saved by the remember tool during a run), ``user`` (Memory page, CLI) or ``outside`` (saved by
    a run that had read outside content)."""
    source_session_id: str | None = None
    """The session it was saved in (kept when that session is deleted)."""
    source_title: str | None = None
    """That session's title, or None when there is no source session or it was deleted."""
    score: float | None = None
    """Search results only: query terms found, plus a 0-1 relevance (FTS5's BM25, the same on PostgreSQL)."""
    rank: int | None = None
    """Search results only: 1 for the best match, 2 for the next... (what people are shown, not the score)."""
    existing: bool = False
    """``add`` only: True when the same fact was already saved and that memory is returned instead."""

    @property
    def source_deleted(self) -> bool:
        """True when the memory came from a session that no longer exists."""
        return self.source_session_id is not None and self.source_title is None

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able form (tool details, ``memory list --json``)."""
        return {
            "id": self.id,
            "scope": self.scope,
            "text": self.text,
            "created_at": self.created_at,
            "origin": self.origin,
            "source_session_id": self.source_session_id,
            "source_title": self.source_title,
            "source_deleted": self.source_deleted,
            "score": self.score,
            "rank": self.rank,
        }


def default_scope() -> str:
    """The scope runs use unless told otherwise: ``$SPARROW_MEMORY_SCOPE``, else ``default``."""
    try:
        return check_scope(env_settings().sparrow_memory_scope or DEFAULT_SCOPE)
    except MemoryRefused as exc:
        raise MemoryRefused("scope", f"SPARROW_MEMORY_SCOPE: {exc.reason}") from None


def check_scope(scope: str) -> str:
    """``scope`` if it is a valid scope name (1-64 letters, digits, ``_.@:-``); raises MemoryRefused."""
    if not _SCOPE.match(scope):
        raise MemoryRefused("scope", f"{scope!r} is not a scope name: use 1 to 64 letters, digits or _ . @ : -")
    return scope
