"""What a JSON value from outside may hold, and ``loads``, the JSON reader that survives any depth.

JSON allows numbers and nesting that Python reads but cannot give back: ``1e400`` becomes Infinity (which an
export cannot write), a time in milliseconds or ``2**63`` cannot become a date, 900 levels of nesting overflow the
recursion of ``json.dumps``, a 4,000-digit count is no count. ``check_values`` walks a parsed value once, without
recursion, and names the first field that breaks a rule, from ``MAX_DEPTH`` to the one table of numeric ranges
(``FIELD_RANGES``): the importer refuses it; ``tame`` rewrites such values into strings that say what they were
(for what a model or a tool produced). Python's own reader recurses once per level and fails past the
interpreter's limit with a RecursionError that no parser's ``except ValueError`` catches, so every parser of model
output, tool output and files reads through ``loads`` here: more than ``MAX_DEPTH`` levels is a JSONDecodeError,
a format problem like any other, named in one sentence.
"""

from __future__ import annotations

import json
import math
from typing import Any

MAX_DEPTH = 64
"""Nesting levels allowed inside one event (tool arguments and details are the deep ones)."""
MAX_NUMBER = 2**53
"""Largest magnitude of an integer: beyond it JSON readers lose precision and SQLite cannot store it."""
MAX_TIME = 4_102_444_800.0
"""2100-01-01 in Unix seconds: later times are almost surely milliseconds or garbage."""
TIME_FIELDS = frozenset({"ts", "created_at", "updated_at"})
"""Keys holding Unix times in seconds (checked at the top level of an event, a session or a snapshot)."""


MAX_DURATION_MS = 1e10
"""Longest duration a step may report: about 115 days (a run is limited to hours; anything past is garbage)."""
MAX_COUNT = 10**12
"""Most tokens, steps or calls one field may count."""
FIELD_RANGES: dict[str, tuple[float, float]] = {
    "duration_ms": (0.0, MAX_DURATION_MS),
    "latency_ms": (0.0, MAX_DURATION_MS),
    "ttft_ms": (0.0, MAX_DURATION_MS),
    "prompt_tokens": (0, MAX_COUNT),
    "completion_tokens": (0, MAX_COUNT),
    "step": (0, MAX_COUNT),
    "steps": (0, MAX_COUNT),
    "from_step": (0, MAX_COUNT),
    "tool_calls": (0, MAX_COUNT),
    "messages_kept": (0, MAX_COUNT),
    "seq": (0, MAX_COUNT),
}
"""The range of every numeric field of an event (and of its ``usage``): checked at the door, named when out."""
RANGED_PARENTS = frozenset({"usage"})
"""Nested objects whose fields ``FIELD_RANGES`` covers too (never the free-form arguments or details)."""


class ValueRefused(ValueError):
    """A value the importer will not accept; the message names the field and says why."""


def check_values(value: Any, where: str) -> None:
    """Raise ValueRefused naming the first non-finite, too large, too deep or out-of-range value."""
    pending: list[tuple[Any, str, int]] = [(value, where, 0)]
    while pending:
        item, path, depth = pending.pop()
        if depth > MAX_DEPTH:
            shown = path if len(path) <= 80 else f"{path[:60]}…"
            raise ValueRefused(f"{shown}: nested deeper than {MAX_DEPTH} levels")
        if isinstance(item, dict):
            pending.extend((v, f"{path}.{k}", depth + 1) for k, v in item.items())
            if depth == 0:
                _check_times(item, path)
            if depth == 0 or (depth == 1 and path.rsplit(".", 1)[-1] in RANGED_PARENTS):
                _check_ranges(item, path)
        elif isinstance(item, (list, tuple)):
            pending.extend((v, f"{path}[{i}]", depth + 1) for i, v in enumerate(item))
        elif isinstance(item, (int, float)) and not isinstance(item, bool):
            check_number(item, path)


def check_number(number: float, path: str) -> None:
    """Refuse Infinity, NaN and integers past MAX_NUMBER (finite floats round-trip through JSON as they are)."""
    if isinstance(number, float) and not math.isfinite(number):
        raise ValueRefused(f"{path}: {number} is not a finite number")
    if isinstance(number, int) and abs(number) > MAX_NUMBER:
        raise ValueRefused(f"{path}: an integer of {number.bit_length()} bits is too large (the limit is 2**53)")


def shown_number(number: float) -> str:
    """A number as a short text, however large (a 4,000-digit integer is not printed in full)."""
    if isinstance(number, int) and abs(number) > MAX_NUMBER:
        return f"an integer of {number.bit_length()} bits"
    return f"{number:g}"


def check_time(value: Any, path: str) -> None:
    """A Unix time in seconds between 1970 and 2100."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and not 0 <= value <= MAX_TIME:
        hint = " (milliseconds? times are in seconds)" if 1e11 <= value <= 1e15 else ""
        raise ValueRefused(f"{path}: {shown_number(value)} is not a time between 1970 and 2100{hint}")


def _check_ranges(fields: dict[str, Any], path: str) -> None:
    """Each field of ``FIELD_RANGES`` in ``fields`` within its range (None is left to the schema)."""
    for key in FIELD_RANGES.keys() & fields.keys():
        value, (low, high) = fields[key], FIELD_RANGES[key]
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            continue
        if (isinstance(value, float) and not math.isfinite(value)) or (
            isinstance(value, int) and abs(value) > MAX_NUMBER
        ):
            continue  # named as "not a finite number" or "too large" by the walk
        if not low <= value <= high:
            raise ValueRefused(f"{path}.{key}: {shown_number(value)} is outside {low:g} to {high:g}")


def _check_times(fields: dict[str, Any], path: str) -> None:
    for key in TIME_FIELDS & fields.keys():
        value = fields[key]
        if isinstance(value, float) and not math.isfinite(value):
            continue  # named as "not a finite number" by the walk
        check_time(value, f"{path}.{key}")


def tame(value: Any, depth: int = 0) -> Any:
    """A copy of a JSON-like value that ``check_values`` accepts: offending parts become explanatory strings."""
    if isinstance(value, dict):
        if depth >= MAX_DEPTH:
            return f"[nested deeper than {MAX_DEPTH} levels]"
        return {str(k): tame(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        if depth >= MAX_DEPTH:
            return f"[nested deeper than {MAX_DEPTH} levels]"
        return [tame(v, depth + 1) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_NUMBER:
        return f"[an integer of {value.bit_length()} bits]"
    return value


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
