"""In a real browser: two questions on the Chat page, then their trace, inspector, overview, export and replay.

Screenshots land in test-artifacts/traces_*.png (the viewport is made tall so each shows the whole page).
"""

from __future__ import annotations

import json
from typing import Any

from agent_core.testing.rule_llm import TWO_TOOLS
from tests.e2e.conftest import open_page, run_settled, shot, wait_for_app

ANSWER = "150 days after 2024-05-20 is 2024-10-17"
FOLLOW_UP = "Add 9 to that"


def no_exception(page: Any) -> None:
    """Streamlit drew no error box."""
    assert page.locator('[data-testid="stException"]').count() == 0


def ask(page: Any, question: str, answer: str) -> None:
    """Ask on the Chat page and wait for the answer."""
    box = page.get_by_placeholder("Ask anything…")
    box.fill(question)
    box.press("Enter")
    page.get_by_text(answer).first.wait_for(timeout=30_000)
    run_settled(page)


def open_tab(page: Any, name: str) -> None:
    """Click one of the page's tabs and wait for the rerun (and the tab's underline to settle)."""
    page.get_by_role("tab", name=name).click()
    wait_for_app(page)
    page.wait_for_timeout(400)


def charts_drawn(page: Any, count: int) -> None:
    """Wait until ``count`` Vega charts are on the page and each has drawn its marks."""
    page.wait_for_function(
        """n => {
            const charts = [...document.querySelectorAll('[data-testid="stVegaLiteChart"]')];
            return charts.length === n && charts.every(c => c.querySelector('canvas, svg.marks'));
        }""",
        arg=count,
        timeout=20_000,
    )


def progress(page: Any, text: str) -> None:
    """Wait for the replay's progress caption."""
    page.get_by_text(text).first.wait_for(timeout=30_000)


def test_the_traces_page_of_a_real_session(page: Any, app_url: str) -> None:
    page.goto(app_url)
    wait_for_app(page)
    ask(page, TWO_TOOLS, ANSWER)
    ask(page, FOLLOW_UP, "The result is")
    page.set_viewport_size({"width": 1500, "height": 2400})
    open_page(page, "Traces", "traces")
    page.get_by_text("Where the time went").wait_for()

    # Run: pick the first turn (two tool calls), see the charts, the steps table and the inspector.
    page.locator('[data-testid="stSelectbox"]').filter(has_text="Run (turn)").click()
    page.get_by_role("option").filter(has_text="Turn 1 ·").click()
    wait_for_app(page)
    charts_drawn(page, 2)
    page.locator('[data-testid="stDataFrame"] canvas').first.wait_for()
    page.get_by_text("Step 2 · date_calculator").first.wait_for()  # a waterfall lane... or the step picker
    no_exception(page)
    shot(page, "traces_run")
    page.get_by_role("tab", name="Parsed").click()
    page.get_by_text("First I multiply 17 by 23.").last.wait_for()
    page.wait_for_timeout(400)
    shot(page, "traces_inspector_parsed")

    # Export: the JSON Lines file is built when its button is clicked.
    page.get_by_role("button", name="Export").click()
    with page.expect_download() as download:
        page.get_by_role("button", name="Events (JSON Lines)").click()
    lines = download.value.path().read_text(encoding="utf-8").splitlines()
    events = [json.loads(line) for line in lines]
    assert events[0]["type"] == "run_started" and events[0]["question"] == TWO_TOOLS
    assert [e["type"] for e in events].count("run_finished") == 2
    shot(page, "traces_export")
    page.keyboard.press("Escape")

    # Session overview: both turns.
    open_tab(page, "Session overview")
    charts_drawn(page, 2)
    assert page.get_by_text("Turns").count() > 0
    no_exception(page)
    shot(page, "traces_session")

    # Replay of turn 1, step by step, then streamed, then played to the end.
    open_tab(page, "Replay")
    next_step = page.get_by_role("button", name="Next step")
    for frame in (2, 3):
        next_step.click()
        progress(page, f"{frame} of 6")
        wait_for_app(page)
    no_exception(page)
    shot(page, "traces_replay_step3")
    page.locator('[data-testid="stButtonGroup"] button', has_text="0.5×").click()
    wait_for_app(page)
    next_step.click()
    page.get_by_text("Thought: Now the date").first.wait_for()  # the reply streams in, word by word
    shot(page, "traces_replay_streaming")
    progress(page, "4 of 6")
    wait_for_app(page)
    page.locator('[data-testid="stButtonGroup"] button', has_text="8×").click()
    wait_for_app(page)
    page.get_by_role("button", name="Play").click()
    progress(page, "6 of 6")
    page.get_by_role("button", name="Pause").wait_for(state="detached", timeout=30_000)  # stopped at the end
    wait_for_app(page)
    page.get_by_text("completed · 3 steps").first.wait_for()  # the caption under the finished answer
    assert page.get_by_text(ANSWER).count() > 0
    no_exception(page)
    shot(page, "traces_replay_end")

    # The whole session, in Chinese.
    page.get_by_text("简体中文").click()
    wait_for_app(page)
    page.get_by_text("回放整个会话").click()
    progress(page, "1 / 10")
    wait_for_app(page)
    page.locator('[data-testid="stButton"] button:visible:has-text("last_page")').click()  # jump to the end
    wait_for_app(page)
    progress(page, "10 / 10")
    no_exception(page)
    shot(page, "traces_replay_session_zh")
