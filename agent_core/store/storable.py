"""Text a database can store: PostgreSQL refuses U+0000 in text, so every value bound for it is checked first.

Events travel as JSON (which writes a NUL as ``\\u0000``) and titles are made visible (``untrusted.visible``), so a NUL
reaches a text column only through a path that forgot; this check names it in one sentence instead of the
driver's traceback, and nothing is written.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Engine


class NotStorable(ValueError):
    """A value the database cannot store; the message says which and why."""


def check_storable(value: str, what: str) -> str:
    """``value`` if PostgreSQL can store it as text; NotStorable naming ``what`` when it holds U+0000."""
    if "\x00" in value:
        at = value.index("\x00")
        raise NotStorable(
            f"{what} contains a NUL character (U+0000) at position {at}, which the database cannot store as text: "
            "remove it and try again"
        )
    return value


def guard_text(engine: Engine) -> Engine:
    """On PostgreSQL, refuse every statement whose parameters hold a NUL, before it is sent (returns the engine)."""
    if engine.dialect.name != "postgresql":
        return engine

    @event.listens_for(engine, "before_cursor_execute")
    def _check(_conn: Any, _cursor: Any, _statement: str, parameters: Any, _context: Any, _many: bool) -> None:
        for value in _strings(parameters):
            check_storable(value, "a text bound for the database")

    return engine


def _strings(parameters: Any) -> Iterable[str]:
    rows = parameters if isinstance(parameters, (list, tuple)) else [parameters]
    for row in rows:
        values = row.values() if isinstance(row, dict) else row if isinstance(row, (list, tuple)) else [row]
        for value in values:
            if isinstance(value, str):
                yield value
