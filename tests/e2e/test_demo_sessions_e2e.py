"""Sessions that scale, in a browser at 1280×720 and 1440×900: forty sessions, searched, paged, renamed twice.

Screenshots: test-artifacts/demo_sessions_<w>x<h>.png (the first page), demo_sessions_search_<w>x<h>.png.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect

from agent_core.engine.agent import Agent
from agent_core.examples import open_example
from agent_core.runtime.sessions import run_in_session
from agent_core.store import SessionStore
from agent_core.testing import ScriptedModel
from agent_core.tools import builtin_tools
from tests.core.helpers import answer
from tests.e2e.conftest import ARTIFACTS, press, wait_for_app
from tests.e2e.test_demo_e2e import demo_store, no_key_app, tab

__all__ = ["demo_store", "no_key_app"]
SIZES = [(1280, 720), (1440, 900)]
_SCROLLED = (  # the main area scrolls in stMain, or (on a page with a chat input) in its scroll-to-bottom box
    "() => Math.max(...['stMain', 'stAppScrollToBottomContainer']"
    ".map(id => document.querySelector(`[data-testid=${id}]`)).filter(Boolean).map(e => e.scrollTop))"
)


def _forty(store: SessionStore, tag: str) -> None:
    for number in range(40):
        session = store.sessions.create()
        question = f"What is 6 * 7? {tag}" if number % 13 == 0 else f"{tag} question number {number}"
        list(
            run_in_session(store, session.id, Agent(ScriptedModel([answer("Easy.", "42")]), builtin_tools()), question)
        )


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_forty_sessions_search_pages_and_renames(
    browser: Any, no_key_app: tuple[str, Path], demo_store: SessionStore, width: int, height: int
) -> None:
    url, _ = no_key_app
    tag = f"s{width}"
    _forty(demo_store, tag)
    page = tab(browser, width, height)
    page.goto(f"{url}/sessions")
    wait_for_app(page)
    page.get_by_text(re.compile(r"Page 1 of \d+ · \d+ sessions")).wait_for()
    wait_for_app(page)
    page.get_by_role("button", name="Open", exact=True).first.wait_for()
    page.get_by_placeholder("Words in the title or any question").wait_for()
    assert page.evaluate(_SCROLLED) == 0  # opens at the top
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"demo_sessions_{width}x{height}.png"))
    cards = page.locator('[class*="st-key-card_"]')
    expect(cards).to_have_count(10)
    search = page.get_by_placeholder("Words in the title or any question")
    search.fill(f"What is 6 * 7? {tag}")
    search.press("Enter")
    expect(cards).to_have_count(4)  # the four alike sessions, numbered apart
    page.get_by_text(f"What is 6 * 7? {tag} (4 / 4)").wait_for()
    wait_for_app(page)
    page.screenshot(path=str(ARTIFACTS / f"demo_sessions_search_{width}x{height}.png"))
    # Rename the second card; the list re-sorts; Rename on the (new) second card names that card's session.
    for attempt in range(2):
        card = cards.nth(1)
        title = card.locator("strong").first.inner_text()
        box = page.get_by_test_id("stPopoverBody").get_by_role("textbox")
        for _ in range(3):  # a click during a redraw under load can be lost: click again until the popover opens
            card.get_by_role("button", name="Rename").click()
            try:
                box.wait_for(timeout=6_000)
                break
            except PlaywrightTimeout:
                continue
        assert box.input_value() == re.sub(r" \(\d+ / \d+\)$", "", title), (attempt, box.input_value(), title)
        box.fill(f"What is 6 * 7? {tag} renamed {attempt}")
        press(page, page.get_by_test_id("stPopoverBody").get_by_role("button", name="Rename"))
        page.get_by_text(f"renamed {attempt}").first.wait_for()
        wait_for_app(page)
    page.context.close()


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_the_chinese_sidebar_has_no_english_left(
    browser: Any, no_key_app: tuple[str, Path], width: int, height: int
) -> None:
    """An example opened with no key, in 简体中文: the file uploader's own words are Chinese too."""
    url, _ = no_key_app
    page = tab(browser, width, height)
    page.goto(url)
    wait_for_app(page)
    page.get_by_text("Connect a model to start chatting").wait_for()
    page.get_by_role("button", name=re.compile("Open an example session: Example · dates")).click()
    page.get_by_text("Example session", exact=False).first.wait_for()
    wait_for_app(page)
    page.get_by_test_id("stSidebar").get_by_text("简体中文").click()
    page.get_by_text("追踪").first.wait_for()
    wait_for_app(page)
    page.wait_for_timeout(500)
    sidebar = page.get_by_test_id("stSidebar")
    uploader = sidebar.locator('[data-testid="stFileUploaderDropzone"]')
    words = uploader.evaluate(
        "e => [...e.querySelectorAll('button, [data-testid=stFileUploaderDropzoneInstructions] span')]"
        ".map(x => getComputedStyle(x, '::after').content).join(' ')"
    )
    assert "上传" in words and "每个文件" in words, words
    page.screenshot(path=str(ARTIFACTS / f"demo_chinese_sidebar_{width}x{height}.png"))
    page.context.close()


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_a_click_on_a_steps_table_cell_opens_the_step_without_scrolling(
    browser: Any, no_key_app: tuple[str, Path], demo_store: SessionStore, width: int, height: int
) -> None:
    url, _ = no_key_app
    session = open_example(demo_store, "recovery")
    page = tab(browser, width, height)
    page.goto(f"{url}/traces?session={session.id}")
    wait_for_app(page)
    table = page.locator('[data-testid="stDataFrame"]').first
    table.scroll_into_view_if_needed()
    wait_for_app(page)
    page.wait_for_timeout(1500)  # the grid draws its rows a moment after its frame
    before = page.evaluate(_SCROLLED)
    box = table.bounding_box()
    assert box is not None
    page.mouse.click(box["x"] + box["width"] * 0.3, box["y"] + 35 * 3 + 17)  # the header row, then row 3's cell
    page.get_by_text(re.compile(r"^Step 3 · \d+ ms")).wait_for(timeout=15_000)  # the Inspector's step header
    wait_for_app(page)
    page.wait_for_timeout(500)
    assert abs(page.evaluate(_SCROLLED) - before) < 40, "opening the step scrolled the page"
    page.screenshot(path=str(ARTIFACTS / f"demo_table_click_{width}x{height}.png"))
    page.context.close()
