"""Links to pages work on a server that has not shown app.py yet (Streamlit's legacy pages/ mode)."""

from __future__ import annotations

from pathlib import Path

from agent_core.testing import FakeOpenAIServer
from tests.e2e.conftest import shot, streamlit_server, wait_for_app


def test_a_shared_link_to_a_page_opens_it_with_the_app_navigation(
    browser, fake_llm: FakeOpenAIServer, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    with streamlit_server(fake_llm, tmp_path / "data", tmp_path / "streamlit.log") as url:
        context = browser.new_context(viewport={"width": 1400, "height": 900})
        page = context.new_page()
        page.set_default_timeout(20_000)
        page.goto(f"{url}/sessions")  # the very first visit of this server
        wait_for_app(page)
        nav = page.get_by_test_id("stSidebarNav")
        nav.get_by_text("Traces", exact=True).wait_for()
        assert nav.get_by_text("app", exact=True).count() == 0  # not the legacy page list
        page.get_by_role("heading", name="Sessions").wait_for()
        page.get_by_text("No saved sessions yet.").wait_for()
        shot(page, "navigation_direct_link")
        context.close()
