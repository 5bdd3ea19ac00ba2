"""Untrusted text (a session title, a tool name) shown inside Streamlit markdown as the plain text it is."""

from __future__ import annotations

import re

_PUNCTUATION = re.compile(r"([\\`*_{}\[\]()<>#+\-.!|~:$&])")


def plain(text: str) -> str:
    """``text`` with every markdown punctuation backslash-escaped and newlines folded: no link, image or markup."""
    return _PUNCTUATION.sub(r"\\\1", " ".join(text.split()))
