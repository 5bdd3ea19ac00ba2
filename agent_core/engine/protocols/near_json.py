"""Near-JSON that real models write in an Action Input, repaired one step at a time until it parses.

Tried in order, each on top of the last, stopping at the first text that parses as JSON (or as a
Python literal): typographic quotes (“ ” ‘ ’ „ « » 「 」 ＂ ＇) as delimiters, single-quoted strings,
full-width braces, colons and commas from Chinese input methods, trailing commas, unquoted keys.
A reply cut short (a missing closing bracket) is not guessed at: the model is told about it.
Valid JSON never reaches this module, so text inside well-formed strings is never rewritten.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable
from typing import Any

from agent_core.guards import json_limits

_DOUBLE = str.maketrans({"“": '"', "”": '"', "„": '"', "‟": '"', "«": '"', "»": '"', "「": '"', "」": '"', "＂": '"'})
_SINGLE = str.maketrans({"‘": "'", "’": "'", "‚": "'", "‛": "'", "＇": "'"})
_FULL_WIDTH = str.maketrans({"｛": "{", "｝": "}", "［": "[", "］": "]", "：": ":", "，": ","})
_SINGLE_QUOTED = re.compile(r"'((?:[^'\\\n\"]|\\.)*)'")
"""A single-quoted string without double quotes inside: rewritten as a JSON string (``{'a': true}``)."""
_TRAILING_COMMA = re.compile(r",\s*([}\]])")
_UNQUOTED_KEY = re.compile(r"([{,]\s*)([A-Za-z_][A-Za-z0-9_\-]*)\s*:")
OPENERS = "{[｛［"
"""First characters of a structured Action Input (ASCII or full-width)."""


def loads_near_json(text: str) -> Any:
    """The value ``text`` means, after as few repairs as needed; ValueError when none helps."""
    for repaired in _repairs(text):
        value = _parse(repaired)
        if value is not None:
            return value
    raise ValueError("not JSON, even after repairing quotes, punctuation and commas")


def _repairs(text: str) -> list[str]:
    steps: list[Callable[[str], str]] = [
        lambda t: t.translate(_DOUBLE),
        lambda t: t.translate(_SINGLE),
        lambda t: _SINGLE_QUOTED.sub(lambda m: json.dumps(m.group(1), ensure_ascii=False), t),
        lambda t: t.translate(_FULL_WIDTH),
        lambda t: _TRAILING_COMMA.sub(r"\1", t),
        lambda t: _UNQUOTED_KEY.sub(r'\1"\2":', t),
    ]
    out, current = [], text
    for step in steps:
        current = step(current)
        out.append(current)
    return out


def _parse(text: str) -> Any:
    try:
        value, _ = json_limits.raw_decode(text.strip())
        return value
    except ValueError:
        pass
    try:
        value = ast.literal_eval(text.strip())
    except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError):
        return None
    if isinstance(value, (dict, list)) and not json_limits.depth_over(value, json_limits.MAX_DEPTH):
        return value
    return None
