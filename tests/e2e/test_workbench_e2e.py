"""The workbench as people use it, in a real browser at 1400×900 and at projector size 1280×720: settings and
language stay across every page and a reload; a new turn's live trace starts empty; the trace stays in view;
a full demo session (failing tool, format retries, step limit, Stop) is readable and nothing important is cut.

Each test runs its own server on a fresh data directory: the settings it changes are saved there.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from agent_core.store import SessionStore
from agent_core.testing import FakeOpenAIServer
from agent_core.testing.rule_llm import SLOW, TWO_TOOLS
from tests.app.demo_session import record_demo
from tests.e2e.conftest import click_until, shot, streamlit_server, wait_for_app

VIEWPORTS = [(1400, 900), (1280, 720)]
NAV = ["会话", "追踪", "记忆", "工具", "对话"]
PATHS = ["sessions", "traces", "memory", "tools", ""]


@pytest.fixture(params=VIEWPORTS, ids=lambda v: f"{v[0]}x{v[1]}")
def viewport(request: pytest.FixtureRequest) -> tuple[int, int]:
    return request.param


@pytest.fixture
def server(fake_llm: FakeOpenAIServer, tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A server of its own, and its data directory."""
    data = tmp_path / "data"
    with streamlit_server(fake_llm, data, tmp_path / "streamlit.log") as url:
        yield url, data


@pytest.fixture
def tab(browser, viewport: tuple[int, int]) -> Iterator[object]:  # type: ignore[no-untyped-def]
    context = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]})
    context.set_default_timeout(20_000)
    yield context.new_page()
    context.close()


def ask(page, question: str, placeholder: str = "Ask anything…") -> None:  # type: ignore[no-untyped-def]
    box = page.get_by_placeholder(placeholder)
    box.fill(question)
    box.press("Enter")


def expect_settings_kept(page) -> None:  # type: ignore[no-untyped-def]
    """The sidebar (its expanders opened) shows the model name and protocol chosen, in Chinese."""
    page.get_by_test_id("stSidebarNav").get_by_text("对话", exact=True).wait_for()
    side = page.get_by_test_id("stSidebarUserContent")
    for expander in side.get_by_test_id("stExpander").all():
        if expander.locator("details").get_attribute("open") is None:
            expander.locator("summary").click()
    expect(side.get_by_label("模型名称")).to_have_value("fake-model")
    expect(side.locator('label:has-text("原生工具调用") input')).to_be_checked()


def saved(data: Path, **expected: Any) -> None:
    """Wait until the server wrote these settings: the rerun that records a click has run.

    A click shows in the browser at once, but on a busy machine the rerun that keeps it may not have started
    when the test clicks on; a page change then would race it, as a person clicking that fast would.
    """
    deadline, current = time.monotonic() + 20, {}
    while time.monotonic() < deadline:
        try:
            current = json.loads((data / "ui_settings.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            current = {}
        if all(current.get(name) == value for name, value in expected.items()):
            return
        time.sleep(0.05)
    raise AssertionError(f"the server did not save {expected}; it has {current}")


def test_settings_and_language_stay_across_every_page_and_a_reload(  # type: ignore[no-untyped-def]
    tab, server: tuple[str, Path], fake_llm: FakeOpenAIServer, viewport: tuple[int, int]
) -> None:
    url, data = server
    tab.goto(url)
    wait_for_app(tab)
    side = tab.get_by_test_id("stSidebarUserContent")
    side.get_by_text("简体中文").click()
    wait_for_app(tab)
    side.get_by_text("模型 ·").first.click()
    side.get_by_label("模型名称").fill("fake-model")
    side.get_by_label("模型名称").press("Enter")
    wait_for_app(tab)
    side.get_by_text("智能体", exact=True).click()
    side.get_by_text("原生工具调用").click()
    saved(data, model="fake-model", protocol="tools")
    wait_for_app(tab)
    expect(side.locator('label:has-text("原生工具调用") input')).to_be_checked()
    expect(side.get_by_label("模型名称")).to_have_value("fake-model")
    nav = tab.get_by_test_id("stSidebarNav")
    for title, path in zip(NAV, PATHS, strict=True):
        nav.get_by_text(title, exact=True).click()
        tab.wait_for_url(f"{url}/{path}*")
        wait_for_app(tab)
        expect_settings_kept(tab)
    ask(tab, "What is 6 * 7?", placeholder="输入你的问题…")
    tab.get_by_role("group", name="Chat message from assistant").get_by_text("The result is 42.").wait_for()
    assert fake_llm.requests[-1]["model"] == "fake-model" and fake_llm.requests[-1].get("tools")
    shot(tab, f"settings_kept_{viewport[0]}")
    tab.reload()
    wait_for_app(tab)
    expect_settings_kept(tab)


def test_a_new_turn_starts_with_an_empty_trace_that_stays_in_view(  # type: ignore[no-untyped-def]
    tab, server: tuple[str, Path], viewport: tuple[int, int]
) -> None:
    url, _ = server
    tab.goto(url)
    wait_for_app(tab)
    answers = ["The result is 42.", "The result is 52.", "a Thursday."]
    for question, answer in zip(("What is 6 * 7?", "Add 10 to that result", TWO_TOOLS), answers, strict=True):
        ask(tab, question)
        tab.get_by_role("group", name="Chat message from assistant").get_by_text(answer).wait_for()
        wait_for_app(tab)
    trace = tab.locator(".st-key-trace-column")
    trace.get_by_text("2 tool calls: calculator ×1, date_calculator ×1").wait_for()
    # The answer shows before its run ends; a question asked before then would wait in the queue.
    trace.get_by_text("Turn 3 · completed").wait_for()
    ask(tab, SLOW)
    trace.get_by_text("Turn 4").first.wait_for()
    trace.get_by_text("running").first.wait_for()
    tab.wait_for_timeout(400)  # the old turn's blocks would show here, under the running step
    live_text = trace.inner_text()
    assert "Turn 4" in live_text and "17 * 23" not in live_text and "date_calculator" not in live_text
    # The trace stays in view while the chat scrolls to its end.
    tab.get_by_role("group", name="Chat message from assistant").last.scroll_into_view_if_needed()
    tab.wait_for_timeout(300)
    box = trace.bounding_box()
    shot(tab, f"live_trace_in_view_{viewport[0]}")
    assert box is not None and 0 <= box["y"] < viewport[1] / 2, box
    tab.get_by_role("button", name="Stop").click()
    trace.get_by_text("stopped by user").wait_for()
    wait_for_app(tab)  # drawn to the end: an absence below is not merely a late arrival
    assert trace.locator('[data-testid="stAlertContentError"]').count() == 0


def test_a_demo_session_is_readable_and_nothing_important_is_cut(  # type: ignore[no-untyped-def]
    tab, server: tuple[str, Path], viewport: tuple[int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    url, data = server
    monkeypatch.setenv("SPARROW_DATA_DIR", str(data))
    store = SessionStore.open()
    session_id = record_demo(store)
    store.close()
    tab.goto(f"{url}/?session={session_id}")
    wait_for_app(tab)
    width = viewport[0]
    tab.locator(".st-key-trace-column").get_by_text("Turn 7").wait_for()
    tab.get_by_text("No: never eval untrusted text.").first.wait_for()
    tab.get_by_role("button", name="Replay").last.wait_for()
    wait_for_app(tab)
    shot(tab, f"demo_{width}_01_last_turn")
    turn_trace = tab.get_by_role("button", name="Trace")
    selected = tab.locator(".st-key-turn-selected")
    click_until(tab, turn_trace.nth(1), selected.get_by_text("What is 1 / 0?"))  # turn 2: the failing tool
    wait_for_app(tab)
    trace = tab.locator(".st-key-trace-column")
    trace.get_by_text("tool error").first.wait_for()
    trace.get_by_text("calculator: division by zero").first.wait_for()  # open by itself
    assert selected.get_by_text("What is 1 / 0?").count() == 1
    shot(tab, f"demo_{width}_02_failing_tool")
    click_until(tab, turn_trace.nth(2), selected.get_by_text("What is 2 + 2?"))  # turn 3: format retry, repeat
    wait_for_app(tab)
    trace.get_by_text("unusable reply · retry 1 of 2").wait_for()
    trace.get_by_text("repeat of step 2, not run again").wait_for()
    for code in trace.locator('[data-testid="stCode"] pre').all():
        assert code.evaluate("e => e.scrollWidth <= e.clientWidth + 1"), "a code block is cut"
    shot(tab, f"demo_{width}_03_retries")
    click_until(tab, turn_trace.nth(4), selected.get_by_text("Count to a hundred"))  # turn 5: the step limit
    wait_for_app(tab)
    trace.get_by_text("reached the step limit").wait_for()
    shot(tab, f"demo_{width}_04_step_limit")
    # Replay opens the Traces page on this turn's Replay tab.
    tab.get_by_role("button", name="Replay").nth(1).click()
    wait_for_app(tab)
    tab.get_by_role("tab", name="Replay").wait_for()
    shot(tab, f"demo_{width}_05_replay")
    # A control collapses the sidebar.
    tab.get_by_test_id("stSidebar").hover()
    tab.get_by_test_id("stSidebarCollapseButton").locator("button").click()
    tab.wait_for_timeout(500)
    box = tab.get_by_test_id("stSidebar").bounding_box()
    assert box is None or box["x"] + box["width"] <= 10 or box["width"] <= 10, box
    shot(tab, f"demo_{width}_06_sidebar_collapsed")
