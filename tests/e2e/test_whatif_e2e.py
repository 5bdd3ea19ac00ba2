"""In a real browser at 1280×720: open a failing trace, edit step 2's observation, continue, see the diff.

Step 1's tool result comes from the record (the branch never runs it again); the screenshot is
test-artifacts/whatif_diff.png.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from agent_core.engine.agent import Agent
from agent_core.runtime.sessions import run_in_session
from agent_core.store import SessionStore
from agent_core.testing import FakeOpenAIServer, ScriptedModel
from agent_core.testing.rule_llm import TWO_TOOLS, rule_reply
from agent_core.tools import builtin_tools
from tests.core.helpers import answer, react
from tests.e2e.conftest import press, shot, streamlit_server, wait_for_app

FIXED = "2024-05-20 (Monday) + 150 days = 2024-10-17 (Thursday)"
FAILING = [
    react("First I multiply 17 by 23.", "calculator", expression="17 * 23"),
    react("Now the date arithmetic.", "date_calculator", operation="add", date="2024-05-20", days="lots"),
    answer("The date tool failed.", "17 × 23 = 391; I could not work out the date."),
]


@pytest.fixture(scope="module")
def failing_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str, FakeOpenAIServer]]:
    """The app on a data directory holding one failing trace (step 2's date tool got bad arguments)."""
    data = tmp_path_factory.mktemp("whatif-data")
    store = SessionStore.open(f"sqlite:///{data / 'sparrow.db'}")
    session = store.sessions.create()
    agent = Agent(ScriptedModel(FAILING, name="gpt-4o-mini"), builtin_tools())
    list(run_in_session(store, session.id, agent, TWO_TOOLS))
    store.close()
    logs = tmp_path_factory.mktemp("whatif-logs")
    with FakeOpenAIServer(rule_reply) as fake, streamlit_server(fake, data, logs / "streamlit.log") as url:
        yield url, session.id, fake


def test_edit_step_2s_observation_and_continue(browser: Any, failing_app: tuple[str, str, FakeOpenAIServer]) -> None:
    url, session_id, fake = failing_app
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    context.set_default_timeout(30_000)
    page = context.new_page()
    try:
        page.goto(f"{url}/traces?session={session_id}")
        wait_for_app(page)
        picker = page.locator('[data-testid="stSelectbox"]').filter(has_text="Step to inspect")
        picker.wait_for(timeout=60_000)  # the first page of a fresh server takes a while under load
        inspected = page.locator('[data-testid="stMarkdownContainer"]').filter(has_text=re.compile(r"^Step 2 · "))
        for _ in range(5):  # under load a pick, or the open list itself, can be lost to a rerun on its way
            try:
                picker.click(timeout=10_000)
                page.get_by_role("option").filter(has_text="Step 2 · date_calculator").click(timeout=5_000)
                wait_for_app(page)
                inspected.first.wait_for(timeout=5_000)
                break
            except Exception:
                page.keyboard.press("Escape")  # close a list left open, then try again
                continue
        inspected.first.wait_for()  # the Inspector shows step 2: its controls are step 2's
        page.get_by_role("button", name="Edit and continue from here").click()
        box = page.get_by_label("New text")
        box.wait_for()
        box.fill(FIXED)
        shot(page, "whatif_edit_form")
        press(page, page.get_by_role("button", name="Continue", exact=True))
        page.wait_for_url(re.compile(r"/compare\?"))
        page.get_by_text("First divergence: step 2 / 2").first.wait_for(timeout=60_000)
        wait_for_app(page)
        page.get_by_text("Copied from the original: recorded, not run again").first.wait_for()
        page.get_by_text("Edited here (observation)").first.wait_for()
        page.get_by_text("2024-10-17, a Thursday").first.wait_for()
        assert page.locator('[data-testid="stException"]').count() == 0
        assert len(fake.requests) == 1  # only the branch's step 3 asked the model: steps 1 and 2 were copied
        assert "left=" in page.url and "right=" in page.url
        shot(page, "whatif_compare_top")
        page.locator(".st-key-diff_step_1_left").scroll_into_view_if_needed()
        page.wait_for_timeout(300)
        shot(page, "whatif_diff")  # 1280×720, the first divergence in view
        page.set_viewport_size({"width": 1280, "height": 2600})
        wait_for_app(page)
        shot(page, "whatif_diff_whole")
    except Exception:
        shot(page, "failed_whatif")
        raise
    finally:
        context.close()
