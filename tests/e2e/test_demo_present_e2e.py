"""Presentation mode follows the step, at the projector (1280×720) and laptop (1440×900) sizes.

After each → the current step's box is inside the viewport and is the only open step; the controls are one
slim bar; the step's words are the largest text. Entering from Replay starts where Replay was.
Screenshots (the viewport): test-artifacts/present_follow_<w>x<h>_<n>.png, present_from_replay_<w>x<h>.png.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest

from agent_core.examples import open_example
from agent_core.store import SessionStore
from tests.e2e.conftest import ARTIFACTS, wait_for_app
from tests.e2e.test_demo_e2e import demo_store, no_key_app, tab

__all__ = ["demo_store", "no_key_app"]  # the fixture, shared with the other demo tests
SIZES = [(1280, 720), (1440, 900)]

_CURRENT = """() => {
  const boxes = [...document.querySelectorAll('.st-key-replay_trace [data-testid="stExpander"]')];
  const box = boxes[boxes.length - 1];
  if (!box) return null;
  const r = box.getBoundingClientRect();
  const open = boxes.map(b => b.querySelector('details').open);
  return {top: r.top, bottom: r.bottom, height: innerHeight, open: open};
}"""
_SIZES = """() => {
  const px = s => s ? parseFloat(getComputedStyle(s).fontSize) : 0;
  const q = s => document.querySelector(s);
  const bar = q('.st-key-present_controls').getBoundingClientRect();
  const exit = q('.st-key-present_exit button').getBoundingClientRect();
  return {
    words: px(q('.st-key-replay_trace [data-testid="stText"]')),
    code: px(q('.st-key-replay_trace [data-testid="stCode"] code')),
    caption: px(q('.st-key-replay_trace [data-testid="stCaptionContainer"]')),
    summary: px(q('.st-key-replay_trace summary p')),
    bar: bar.height, exit: exit.height, exitRight: exit.right, width: innerWidth,
  };
}"""


def _step(page: Any, key: str, expected: int) -> None:
    page.locator("body").press(key)
    page.get_by_text(re.compile(f"^{expected} of ")).first.wait_for()
    # the page hides Streamlit's header, and with it the running indicator wait_for_app reads: give the
    # frame's reply time to stream in (at most 2 s at presentation speed) and the scroll time to follow
    page.wait_for_timeout(2500)


def _in_view(current: dict[str, Any]) -> bool:
    """The current step's box starts on screen and ends on it, or starts in its upper half (a tall step)."""
    top, bottom, height = current["top"], current["bottom"], current["height"]
    return 0 <= top < height - 40 and (bottom <= height or top < height / 2)


def _settled(page: Any) -> dict[str, Any] | None:
    """The current step's box once its scroll has followed it (a loaded machine streams the frame slowly), or as
    it stands after 15 s; None on a question frame."""
    deadline = time.monotonic() + 15
    while (current := page.evaluate(_CURRENT)) is not None and not _in_view(current) and time.monotonic() < deadline:
        page.wait_for_timeout(200)
    return current


def _frames(page: Any) -> int:
    text = page.locator('[data-testid="stProgress"]').first.inner_text()
    return int(re.search(r"of (\d+)", text).group(1))  # type: ignore[union-attr]


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_presentation_follows_the_current_step(
    browser: Any, no_key_app: tuple[str, Path], demo_store: SessionStore, width: int, height: int
) -> None:
    url, _ = no_key_app
    session = open_example(demo_store, "recovery")
    page = tab(browser, width, height)
    page.goto(f"{url}/present?session={session.id}&present=1")
    wait_for_app(page)
    page.get_by_text(re.compile("^1 of ")).first.wait_for()
    total = _frames(page)
    ARTIFACTS.mkdir(exist_ok=True)
    for frame in range(2, total + 1):
        _step(page, "ArrowRight", frame)
        current = _settled(page)
        if current is None:  # a question frame: no step yet
            continue
        if not (current["bottom"] <= current["height"] or current["top"] < current["height"] / 2):
            page.screenshot(path=str(ARTIFACTS / f"failed_present_{width}x{height}_{frame}.png"))
        assert current["top"] >= 0 and current["top"] < current["height"] - 40, (frame, current)
        assert current["bottom"] <= current["height"] or current["top"] < current["height"] / 2, (frame, current)
        assert current["open"][-1] and not any(current["open"][:-1]), (frame, current["open"])
        if frame in (3, total):
            page.screenshot(path=str(ARTIFACTS / f"present_follow_{width}x{height}_{frame}.png"))
    sizes = page.evaluate(_SIZES)
    assert sizes["bar"] <= 64 and sizes["exit"] <= 44 and sizes["exitRight"] <= sizes["width"], sizes
    assert sizes["words"] > sizes["summary"] > 0 and sizes["code"] > sizes["caption"] > 0, sizes
    assert sizes["words"] >= 1.4 * sizes["caption"], sizes
    page.context.close()


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_presentation_starts_where_replay_was(
    browser: Any, no_key_app: tuple[str, Path], demo_store: SessionStore, width: int, height: int
) -> None:
    url, _ = no_key_app
    session = open_example(demo_store, "dates")
    page = tab(browser, width, height)
    page.goto(f"{url}/traces?session={session.id}")
    wait_for_app(page)
    page.get_by_role("tab", name="Replay").click()
    next_step = page.get_by_role("button", name="Next step")
    progress = page.locator('[data-testid="stProgress"]').first
    for frame in (2, 3):
        next_step.click()
        progress.get_by_text(re.compile(f"^{frame} of ")).wait_for()
        wait_for_app(page)
    caption = progress.inner_text()
    where = caption.split(" · ", 1)[1]  # "Step 2 · Observation (calculator)"
    page.get_by_role("button", name="Presentation mode").click()
    page.wait_for_url(re.compile(r"/present\?"))
    wait_for_app(page)
    shown = page.locator('[data-testid="stProgress"]').first
    shown.get_by_text(where, exact=False).wait_for()
    page.wait_for_timeout(400)
    page.screenshot(path=str(ARTIFACTS / f"present_from_replay_{width}x{height}.png"))
    page.context.close()
