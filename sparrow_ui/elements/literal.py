"""Untrusted text (questions, tool names, tool errors, model text) shown literally inside Streamlit markdown.

Streamlit's markdown reads ``**``, ``__``, ``[..](..)``, ``:red[..]``, ``:material/..:``, ``:emoji:`` and
``$..$``; a question such as ``__import__('os')`` would render in bold. ``literal`` backslash-escapes each
mark where it could start markup (and only there, so ``date_calculator`` or ``Error: 17:30`` read as they are),
then disarms images and HTML tags with ``agent_core.guards.untrusted.neutralize``. (``untrusted.plain`` escapes every
mark; it suits titles and names, where a heavily escaped source does not matter.)
"""

from __future__ import annotations

import re

from agent_core.guards.untrusted import neutralize

_ALWAYS = re.compile(r"([\\`\[\]<>$|])")
_FLANKING = re.compile(r"(?<!\s)([*~])|([*~])(?!\s|$)")
_UNDERSCORE = re.compile(r"(?<![0-9A-Za-z])_|_(?![0-9A-Za-z])")
_DIRECTIVE = re.compile(r":(?=[A-Za-z])")
_ENTITY = re.compile(r"&(?=#?\w+;)")
_LINE_START = re.compile(r"^(\s*)(\d*)([#+=.)-])", re.MULTILINE)


def literal(text: str) -> str:
    """``text`` escaped for st.markdown, st.caption, labels and alerts (newlines kept as line breaks)."""
    escaped = _ALWAYS.sub(r"\\\1", text)
    escaped = _FLANKING.sub(lambda m: "\\" + (m.group(1) or m.group(2)), escaped)
    escaped = _UNDERSCORE.sub(r"\\_", escaped)
    escaped = _DIRECTIVE.sub(r"\\:", escaped)
    escaped = _ENTITY.sub(r"\\&", escaped)
    escaped = _LINE_START.sub(lambda m: f"{m.group(1)}{m.group(2)}\\{m.group(3)}", escaped)
    return neutralize(escaped).replace("\n", "  \n")
