"""Readable session titles from the first question, without a model call."""

from __future__ import annotations

import re
import unicodedata

from agent_core.guards.untrusted import visible

UNTITLED = "New session"
"""Shown for a session that has no question yet."""
TITLE_MAX_CHARS = 200
"""Longest title the store keeps (renames and imports alike)."""

_MARKUP = re.compile(r"^(?:[#>*\-+`~]+|\d+[.)])\s*")
_CLOSING = " \t,;:-–—([{/\\"


def title_from_question(question: str, max_width: int = 60) -> str:
    """A one-line title: the first non-empty line of ``question``, cut at a word near ``max_width`` columns."""
    line = next((ln for ln in question.splitlines() if ln.strip(" \t`~")), "")
    line = visible(" ".join(_MARKUP.sub("", line.strip()).split()))
    if not line:
        return UNTITLED
    if _width(line) <= max_width:
        return line
    cut = _cut_index(line, max_width - 1)
    space = line.rfind(" ", 0, cut + 1)
    if space > cut // 2:
        cut = space
    return line[:cut].rstrip(_CLOSING) + "…"


def clean_title(title: str) -> str:
    """A user-given title on one line, whitespace collapsed, at most TITLE_MAX_CHARS characters."""
    text = visible(" ".join(title.split()))
    if not text:
        raise ValueError("a title cannot be empty")
    return text[:TITLE_MAX_CHARS]


def _width(text: str) -> int:
    return sum(_char_width(c) for c in text)


def _char_width(char: str) -> int:
    """East Asian wide and full-width characters take two columns."""
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def _cut_index(text: str, columns: int) -> int:
    used = 0
    for index, char in enumerate(text):
        used += _char_width(char)
        if used > columns:
            return index
    return len(text)
