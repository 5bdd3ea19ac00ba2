"""Two app replicas on one PostgreSQL: a run on replica 1 is live on replica 2, whose Stop cancels it.

A question asked on replica 2 meanwhile waits for that run to end, then runs.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agent_core.testing import FakeOpenAIServer
from agent_core.testing.rule_llm import SLOW
from tests.e2e.conftest import shot, streamlit_server, wait_for_app


def in_chat(page, text: str):  # type: ignore[no-untyped-def]
    """``text`` inside an assistant chat message."""
    return page.get_by_role("group", name="Chat message from assistant").get_by_text(text)


def test_a_run_on_one_replica_is_live_and_stoppable_on_the_other(  # type: ignore[no-untyped-def]
    browser, fake_llm: FakeOpenAIServer, pg_url: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    logs, shared = tmp_path_factory.mktemp("replica-logs"), {"DATABASE_URL": pg_url}
    data: list[Path] = [tmp_path_factory.mktemp("replica-data") for _ in range(2)]
    with (
        streamlit_server(fake_llm, data[0], logs / "replica1.log", shared) as one,
        streamlit_server(fake_llm, data[1], logs / "replica2.log", shared) as two,
    ):
        contexts = [browser.new_context(viewport={"width": 1500, "height": 950}) for _ in range(2)]
        first, second = (context.new_page() for context in contexts)
        for tab in (first, second):
            tab.set_default_timeout(30_000)
        first.goto(one)
        wait_for_app(first)
        box = first.get_by_placeholder("Ask anything…")
        box.fill(SLOW)
        box.press("Enter")
        first.get_by_role("button", name="Stop").wait_for()
        first.wait_for_url(re.compile(r"\?session=ses_"))
        session_id = re.search(r"session=(ses_[0-9a-f]+)", first.url)[1]  # type: ignore[index]

        second.goto(f"{two}/?session={session_id}")
        second.get_by_text(SLOW).first.wait_for()
        second.get_by_role("button", name="Stop").wait_for()  # live here too, with a working Stop
        assert second.get_by_role("button", name="Resume the run").count() == 0
        assert second.get_by_text("This run was interrupted").count() == 0
        shot(second, "replica2-live-run-from-replica1")

        box = second.get_by_placeholder("Ask anything…")
        box.fill("What is 2 + 3?")
        box.press("Enter")
        second.get_by_text("Waiting for the run in progress to finish").wait_for()  # queued, not interleaved
        shot(second, "replica2-question-waits")

        second.get_by_role("button", name="Stop").click()
        in_chat(first, "No answer (stopped).").wait_for()  # the owner, on replica 1, cancelled it
        in_chat(second, "No answer (stopped).").wait_for()
        in_chat(second, "The result is 5.").wait_for()  # then the waiting question ran, on replica 2
        assert second.get_by_role("button", name="Resume the run").count() == 0
        shot(second, "replica2-after-stop")
        shot(first, "replica1-after-stop-from-replica2")
        for context in contexts:
            context.close()
