"""``loads``: ``json.loads`` that survives any depth: too deep a value is a JSONDecodeError, never a RecursionError.

Python's JSON reader recurses once per level and fails past the interpreter's limit with RecursionError, which
no parser's ``except ValueError`` catches; a value just under it still breaks every later walk of it (validation,
``json.dumps``, rendering). So every parser of model output, tool output and files reads through here: more than
``MAX_DEPTH`` levels is a format problem like any other, named in one sentence.
"""

from __future__ import annotations

import json
from typing import Any

from agent_core.guards.value_limits import MAX_DEPTH


def loads(text: str | bytes, *, max_depth: int | None = MAX_DEPTH, **kwargs: Any) -> Any:
    """``json.loads(text)``; JSONDecodeError (a ValueError) when the value nests deeper than ``MAX_DEPTH``.

    ``max_depth=None`` leaves the depth to the caller (the importer names the field that nests too deep) and only
    turns a RecursionError into the same JSONDecodeError.
    """
    try:
        value = json.loads(text, **kwargs)
    except RecursionError:
        raise too_deep(text) from None
    if max_depth is not None and depth_over(value, max_depth):
        raise too_deep(text)
    return value


def too_deep(text: str | bytes) -> json.JSONDecodeError:
    """The error for a value nested past ``MAX_DEPTH`` levels."""
    return json.JSONDecodeError(f"nested deeper than {MAX_DEPTH} levels", text if isinstance(text, str) else "", 0)


def depth_over(value: Any, limit: int) -> bool:
    """True when lists and objects in ``value`` nest more than ``limit`` levels (walked without recursion)."""
    pending: list[tuple[Any, int]] = [(value, 0)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth >= limit:
            return True
        pending.extend((child, depth + 1) for child in children)
    return False


_DECODER = json.JSONDecoder()


def raw_decode(text: str) -> tuple[Any, int]:
    """``JSONDecoder().raw_decode(text)`` under the same depth rule as ``loads``."""
    try:
        value, end = _DECODER.raw_decode(text)
    except RecursionError:
        raise too_deep(text) from None
    if depth_over(value, MAX_DEPTH):
        raise too_deep(text)
    return value, end
