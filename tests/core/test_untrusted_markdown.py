"""The browser fetches nothing it was not asked to: no image or HTML tag survives ``neutralize``, in any form."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from agent_core.guards.untrusted import ZWSP, neutralize, plain

COMMONMARK = MarkdownIt("commonmark", {"html": True}).enable("table").enable("strikethrough")
"""A CommonMark renderer with raw HTML *on*: stricter than Streamlit, which drops raw HTML anyway."""

FRAGMENTS = st.sampled_from(
    [
        "![",
        "!",
        "[",
        "]",
        "(",
        ")",
        "<",
        ">",
        "\\",
        "`",
        "``",
        "```\n",
        " ",
        "\n",
        "\n\n",
        "*",
        "a",
        "x y",
        "http://evil.example/p.png",
        '"t"',
        "<img src=http://evil.example/p.png>",
        "<IMG SRC='//evil.example/q.gif'/>",
        "<svg><image href=http://evil.example/s.svg></svg>",
        "<picture><source srcset=http://e.x/a.webp></picture>",
        "[r]: http://evil.example/ref.png",
        "[r]",
        "![r]",
        "![a [b] c][r]",
        "![alt](<http://evil.example/a b.png>)",
        "&#33;[x](http://evil.example/e.png)",
        "<!-- c -->",
        "<?php ?>",
        "    indented",
        ">",
        "- ",
        "|a|b|\n|-|-|\n",
    ]
)
HOSTILE = st.lists(FRAGMENTS, max_size=25).map("".join)


def fetches(html: str) -> list[str]:
    """Anything in rendered HTML that a browser would load without a click."""
    return re.findall(r"<(?:img|image|source|video|audio|iframe|object|embed|link|script|svg|picture)\b", html, re.I)


@settings(max_examples=1500, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(HOSTILE)
def test_no_image_or_tag_survives_in_any_arrangement(text: str) -> None:
    safe = neutralize(text)
    assert "![" not in safe
    assert not re.search(r"<[A-Za-z/!?]", safe)
    assert fetches(COMMONMARK.render(safe)) == []
    assert safe.replace(ZWSP, "") == text  # the text reads the same: only invisible marks were added


@settings(max_examples=500, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.text(max_size=200))
def test_any_unicode_text_is_disarmed_and_kept(text: str) -> None:
    safe = neutralize(text)
    assert fetches(COMMONMARK.render(safe)) == []
    assert safe.replace(ZWSP, "") == text.replace(ZWSP, "")


@pytest.mark.parametrize(
    "text",
    [
        "![x](http://evil.example/p.png)",
        "![x][r]\n\n[r]: http://evil.example/p.png",
        "![r]\n\n[r]: http://evil.example/p.png",
        "![a [nested] alt](http://evil.example/p.png)",
        "[![badge](http://evil.example/b.svg)](http://ok.example)",
        "<img src=http://evil.example/p.png>",
        "\\\\![x](http://evil.example/p.png)",
    ],
)
def test_known_forms_render_without_a_fetch(text: str) -> None:
    assert fetches(COMMONMARK.render(text))  # the form really loads something when left alone
    assert fetches(COMMONMARK.render(neutralize(text))) == []


@settings(max_examples=500, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(HOSTILE | st.text(max_size=100))
def test_plain_text_renders_as_written(text: str) -> None:
    html = COMMONMARK.render(plain(text))
    assert fetches(html) == [] and "<a " not in html and "<em>" not in html and "<strong>" not in html
