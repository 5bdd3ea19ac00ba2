"""Truncated titles and totals show their full text on hover, at 1280×720 and 1440×900.

A session title cut off in the Traces and Compare pickers carries its full text as its title (the hover tooltip
and the accessible description); an open picker shows its options whole; nothing cut off on the page (a picker,
a step header, a button, a metric, a caption, the sidebar) is left without its full text.
Screenshots (the viewport): test-artifacts/demo_titles_<view>_<w>x<h>.png.
"""

from __future__ import annotations

import contextlib
import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect

from agent_core.examples import open_example
from agent_core.store import SessionStore
from tests.e2e.conftest import ARTIFACTS, wait_for_app
from tests.e2e.test_demo_e2e import demo_store, no_key_app, tab

__all__ = ["demo_store", "no_key_app"]  # the fixture, shared with the other demo tests
SIZES = [(1280, 720), (1440, 900)]
LONG = "What is 123 times 456, and how many days are there from 2026-12-01 to the end of the year?"
_CUT_WITHOUT_TITLE = """() => {
  // every label drawn cut off (wider than its box) whose full text is nowhere to be read
  const cut = [...document.querySelectorAll(
    'input[role="combobox"], [role="option"] > div, summary p, button p, [data-testid="stMetricValue"] > div,'
    + ' [data-testid="stCaptionContainer"] p, [data-testid="stTab"] p')];
  const text = (e) => (e.tagName === 'INPUT' ? e.value : e.textContent).trim();
  return cut.filter((e) => e.offsetParent !== null && e.scrollWidth > e.clientWidth + 1 && e.title !== text(e))
    .map(text);
}"""


def _shows_full_text(page: Any, picker: Any, full: str) -> None:
    """``picker`` (a combobox) is cut off and hovering it gives its full text; its open list shows options whole."""
    expect(picker).to_have_attribute("title", full)
    assert picker.evaluate("e => e.scrollWidth > e.clientWidth"), "the picker's text fits: nothing to test"
    expect(picker).to_have_accessible_description(full)
    picker.hover()
    picker.click()
    options = page.get_by_role("listbox").get_by_role("option")
    options.first.wait_for()
    for index in range(options.count()):
        option = options.nth(index).locator("div").first
        whole = option.evaluate("e => e.scrollWidth <= e.clientWidth + 1 || e.title === e.textContent.trim()")
        assert whole, f"option {index + 1} is cut off without its full text: {option.inner_text()}"


def _nothing_cut_without_its_text(page: Any) -> None:
    """Every label cut off on the page gets its full text (the page marks them as they are drawn)."""
    with contextlib.suppress(PlaywrightTimeout):  # the assertion below names what was left
        page.wait_for_function(f"() => ({_CUT_WITHOUT_TITLE})().length === 0", timeout=10_000)
    assert page.evaluate(_CUT_WITHOUT_TITLE) == []


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_truncated_titles_show_their_full_text(
    browser: Any, no_key_app: tuple[str, Path], demo_store: SessionStore, width: int, height: int
) -> None:
    """Traces' session and turn pickers, Compare's pickers and the Chat sidebar: every cut label carries its text."""
    url, _ = no_key_app
    size = f"{width}x{height}"
    ARTIFACTS.mkdir(exist_ok=True)
    left = demo_store.sessions.rename(open_example(demo_store, "dates").id, f"{LONG} ({size})")
    right = open_example(demo_store, "recovery")
    page = tab(browser, width, height)
    page.goto(f"{url}/traces?session={left.id}")
    wait_for_app(page)
    session_picker = page.get_by_role("combobox", name="Session")
    session_picker.wait_for()  # a fresh server draws its first page slowly
    expect(session_picker).to_have_value(re.compile(rf"^{re.escape(left.title)} · .* · {left.id[-6:]}$"))
    _shows_full_text(page, session_picker, session_picker.input_value())
    page.screenshot(path=str(ARTIFACTS / f"demo_titles_traces_{size}.png"))
    page.keyboard.press("Escape")
    _nothing_cut_without_its_text(page)
    page.goto(f"{url}/compare?left={left.id}&right={right.id}")
    wait_for_app(page)
    picker = page.get_by_role("combobox", name="Session").first
    picker.wait_for()
    expect(picker).to_have_value(f"{left.title} · {left.id[-6:]}")
    _shows_full_text(page, picker, picker.input_value())
    page.screenshot(path=str(ARTIFACTS / f"demo_titles_compare_{size}.png"))
    page.keyboard.press("Escape")
    _nothing_cut_without_its_text(page)
    page.goto(f"{url}/?session={left.id}")
    page.get_by_test_id("stChatMessage").last.wait_for()
    wait_for_app(page)
    page.get_by_test_id("stSidebar").get_by_text(LONG, exact=False).wait_for()  # the sidebar names it, wrapped
    _nothing_cut_without_its_text(page)
    page.screenshot(path=str(ARTIFACTS / f"demo_titles_chat_{size}.png"))
    page.context.close()
