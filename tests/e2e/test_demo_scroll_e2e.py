"""Pages open at their top, and opening a step leaves the page where it was, at 1280×720 and 1440×900.

The Chat page scrolls in Streamlit's stick-to-bottom box (its chat input is pinned), which followed the content
down as it was drawn: the no-key heading, the example banner and the import message were cut off at the top.
Screenshots (the viewport): test-artifacts/demo_top_<view>_<w>x<h>.png, demo_step_open_<w>x<h>.png.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from agent_core.examples import open_example
from agent_core.store import SessionStore
from agent_core.store.files import export_session
from tests.e2e.conftest import ARTIFACTS, open_page, wait_for_app
from tests.e2e.test_demo_e2e import demo_store, no_key_app, tab

__all__ = ["demo_store", "no_key_app"]  # the fixture, shared with the other demo tests
SIZES = [(1280, 720), (1440, 900)]
_SCROLLED = (  # how far the page is scrolled: the window, stMain, or (a page with a chat input) its stick-to-bottom box
    "() => Math.max(scrollY, ...['stMain', 'stAppScrollToBottomContainer']"
    ".map(id => document.querySelector(`[data-testid=${id}]`)).filter(Boolean).map(e => e.scrollTop))"
)
_SCROLL_RANGE = """(ms) => new Promise((done) => {
  // the least and the most the page is scrolled over the next ``ms`` milliseconds, read on every frame
  const scrolled = SCROLLED;
  let least = scrolled(), most = least;
  const began = performance.now();
  const frame = () => {
    least = Math.min(least, scrolled());
    most = Math.max(most, scrolled());
    if (performance.now() - began < ms) requestAnimationFrame(frame); else done([least, most]);
  };
  requestAnimationFrame(frame);
})""".replace("SCROLLED", _SCROLLED)


def _at_top(page: Any, heading: Any, view: str, size: str) -> None:
    """The page settles at its top (and stays there for a second) with ``heading`` inside the viewport."""
    heading.wait_for()
    wait_for_app(page)
    page.wait_for_function(f"() => ({_SCROLLED})() === 0", timeout=20_000)
    deadline = time.monotonic() + 20
    while (seen := page.evaluate(_SCROLL_RANGE, 1000)) != [0, 0]:  # as it is drawn, until it rests at the top
        assert time.monotonic() < deadline, f"{view}: the page did not rest at its top (scrolled {seen})"
    box = None
    while time.monotonic() < deadline:  # a redraw may swap the element under the locator, or move it a moment
        heading.wait_for()
        box = heading.bounding_box()
        if box is not None and box["y"] >= 0 and box["y"] + box["height"] <= page.viewport_size["height"]:
            break
        page.wait_for_timeout(100)
    assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= page.viewport_size["height"], (view, box)
    page.screenshot(path=str(ARTIFACTS / f"demo_top_{view}_{size}.png"))


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_every_page_opens_at_its_top(
    browser: Any, no_key_app: tuple[str, Path], demo_store: SessionStore, tmp_path: Path, width: int, height: int
) -> None:
    """Chat with no key, an example opened, a session imported, then Sessions and Traces: each starts at its top."""
    url, _ = no_key_app
    size = f"{width}x{height}"
    ARTIFACTS.mkdir(exist_ok=True)
    session_file = tmp_path / "imported.json"
    session_file.write_bytes(export_session(demo_store, open_example(demo_store, "recovery").id))
    page = tab(browser, width, height)
    page.goto(url)
    page.get_by_role("button", name=re.compile("Open an example session: Example · dates")).wait_for()
    _at_top(page, page.get_by_role("heading", name="Connect a model to start chatting"), "no_key", size)
    page.get_by_role("button", name=re.compile("Open an example session: Example · dates")).click()
    page.get_by_test_id("stChatMessage").last.wait_for()
    _at_top(page, page.get_by_text("Example session", exact=False).first, "example", size)
    uploader = page.get_by_test_id("stSidebar").locator('[data-testid="stFileUploader"] input[type="file"]')
    uploader.set_input_files(str(session_file))
    page.get_by_test_id("stChatMessage").last.wait_for()
    _at_top(page, page.get_by_text("Imported as a new session", exact=False), "imported", size)
    open_page(page, "Sessions", "sessions")
    _at_top(page, page.get_by_role("heading", name="Sessions"), "sessions", size)
    open_page(page, "Traces", "traces")
    page.locator('[data-testid="stVegaLiteChart"]').first.wait_for()
    _at_top(page, page.get_by_role("heading", name="Traces"), "traces", size)
    page.context.close()


_FOLDED = ".st-key-trace-column details:not([open]) > summary"
_SHOW_FOLDED = """(folded) => {
  // scroll the trace column (only it) so its first folded step is at the column's top
  const box = document.querySelector('.st-key-trace-column');
  const step = box.querySelector(folded);
  box.scrollTop += step.getBoundingClientRect().top - box.getBoundingClientRect().top;
}"""


def _open_a_folded_step(page: Any) -> None:
    """Bring a folded step into the trace column's view, then click its header (the click itself scrolls nothing)."""
    folded = page.locator(_FOLDED)
    count = folded.count()
    assert count, "no folded step to open"
    page.evaluate(_SHOW_FOLDED, _FOLDED)
    box = folded.first.bounding_box()
    assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= page.viewport_size["height"], box
    for attempt in range(3):  # a click during a redraw under load can be lost: click again while still folded
        page.mouse.click(box["x"] + 40, box["y"] + box["height"] / 2)
        try:
            opened = "([s, n]) => document.querySelectorAll(s).length < n"
            page.wait_for_function(opened, arg=[_FOLDED, count], timeout=8_000)
            return
        except PlaywrightTimeout:
            if attempt == 2:
                raise


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_opening_a_step_keeps_the_page_where_it_was(
    browser: Any, no_key_app: tuple[str, Path], demo_store: SessionStore, width: int, height: int
) -> None:
    """At the top, and again scrolled to the bottom (where the page follows new content): a step opens in place."""
    url, _ = no_key_app
    session = open_example(demo_store, "recovery")
    page = tab(browser, width, height)
    page.goto(f"{url}/?session={session.id}")
    _at_top(page, page.get_by_text("Example session", exact=False).first, "recovery", f"{width}x{height}")
    before = page.evaluate(_SCROLLED)
    _open_a_folded_step(page)
    assert page.evaluate(_SCROLL_RANGE, 1000) == [before, before], "opening a step scrolled the page"
    page.mouse.move(width * 0.4, height * 0.5)
    page.mouse.wheel(0, 5000)  # the user scrolls to the bottom
    page.wait_for_function(
        "() => { const b = document.querySelector('[data-testid=stAppScrollToBottomContainer]');"
        " return b && b.scrollTop > 0 && b.scrollHeight - b.scrollTop - b.clientHeight < 2; }"
    )
    before = page.evaluate(_SCROLLED)
    _open_a_folded_step(page)
    least, most = page.evaluate(_SCROLL_RANGE, 1000)
    assert before - 4 <= least <= most <= before + 4, f"opening a step scrolled the page: {before} to {least}…{most}"
    page.screenshot(path=str(ARTIFACTS / f"demo_step_open_{width}x{height}.png"))
    page.context.close()
