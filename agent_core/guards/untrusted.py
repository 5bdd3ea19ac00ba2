"""Text written by a model, a tool, an endpoint, a user or an imported file, made safe to show.

Markdown can make a browser fetch a remote resource with no click: an image (``![a](url)``, reference-style
``![a][r]`` or ``![r]`` with a ``[r]: url`` definition, alt text with brackets, an image inside a link or a widget
label) or raw HTML (``<img src>``). Each needs ``![`` or ``<tag`` written together, so ``neutralize`` puts an
invisible zero-width space between the two characters: no image or tag can form, and the text reads the same.
``plain`` escapes all Markdown where none is needed (titles, names, error lines). A title can also carry control
characters, bidirectional overrides (U+202E turns the rest of a line around), zero-width characters or a NUL that
PostgreSQL cannot store: ``visible`` writes each as an escape (``\\u202e``), so it reads as what it holds on every
screen and in every database (the zero-width joiner stays: emoji need it), and ``fold`` gives the form to match on.
"""

from __future__ import annotations

import re
import unicodedata

ZWSP = "\u200b"
_HTML = re.compile(r"<(?=[A-Za-z/!?])")
"""A ``<`` that could open an HTML tag, comment or declaration."""
_MARKDOWN = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:])")


def neutralize(text: str) -> str:
    """``text`` with every image and HTML tag disarmed (``![`` and ``<tag`` split by a zero-width space)."""
    return _HTML.sub("<" + ZWSP, text.replace("![", "!" + ZWSP + "["))


def plain(text: str) -> str:
    """``text`` with all Markdown (and Streamlit's ``:color[...]``/``$math$``) escaped: shown exactly as written."""
    return _MARKDOWN.sub(r"\\\1", text)


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
