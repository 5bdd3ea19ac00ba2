"""Text written by a model, a tool, an endpoint or an imported file, made safe to render as Markdown.

Markdown can make a browser fetch a remote resource with no click: an image (``![a](url)``,
reference-style ``![a][r]`` or ``![r]`` with a ``[r]: url`` definition, alt text with brackets, an image
inside a link or inside a widget label) or raw HTML (``<img src>``). Every one of those needs ``![`` or
``<tag`` written together, so ``neutralize`` puts an invisible zero-width space between the two
characters: no image or tag can form, in text, in code or in a label, and the text reads the same.
``plain`` escapes all Markdown for places where none is needed (titles, names, error lines).
"""

from __future__ import annotations

import re

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
