"""Text shown as a title or a name, with every invisible or direction-changing character made visible.

A title can carry control characters, bidirectional overrides (U+202E turns the rest of a line around), zero-width
and other format characters, or a NUL that PostgreSQL cannot store. ``visible`` writes each of them as an escape
(``\\u202e``), so the title reads as what it holds, on every screen and in every database. The zero-width joiner
(U+200D) stays: emoji sequences need it and it changes no direction.
"""

from __future__ import annotations

import unicodedata

_HIDDEN = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
"""Control, format, surrogate, private-use and unassigned characters, and the line/paragraph separators."""
_KEPT = frozenset({"\u200d"})
_FOLD_DROPPED = frozenset({"Cc", "Cf", "Cs"})
"""Dropped from the matching form: control, format (zero-width, bidi overrides) and surrogate characters."""


def is_hidden(char: str) -> bool:
    """True for a character that shows nothing, or changes how the text around it shows."""
    return char not in _KEPT and unicodedata.category(char) in _HIDDEN


def visible(text: str) -> str:
    """``text`` with every hidden character written as ``\\uXXXX`` (``\\UXXXXXXXX`` past the BMP)."""
    if text.isprintable() and "\u200d" not in text:
        return text  # the common case: nothing to escape (isprintable is False for every hidden category)
    return "".join(_escape(c) if is_hidden(c) else c for c in text)


def _escape(char: str) -> str:
    code = ord(char)
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def fold(text: str) -> str:
    """The matching form: NFKC, case-folded, invisible characters removed; line breaks kept, other runs of space one."""
    shown = "".join(c for c in text if c in "\t\n\r" or unicodedata.category(c) not in _FOLD_DROPPED)
    folded = unicodedata.normalize("NFKC", shown).casefold()
    lines = (" ".join(line.split()) for line in folded.splitlines())
    return "\n".join(line for line in lines if line)
