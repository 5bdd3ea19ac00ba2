"""Step headers say what happened (chips, failing steps open), untrusted text stays literal, runs end with a marker."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from agent_core.engine.agent import Agent
from agent_core.events import ModelFinished
from agent_core.models.openai_compat import OpenAIChatModel
from agent_core.runtime.sessions import run_in_session
from agent_core.store import SessionStore
from agent_core.testing import FakeOpenAIServer, Reply
from agent_core.tools import builtin_tools
from agent_core.views.transcript import Transcript
from sparrow_ui.elements.literal import literal
from sparrow_ui.steps.step_status import raw_arguments, repeated_from
from sparrow_ui.translations.i18n import STRINGS
from tests.app.demo_session import MARKDOWN_QUESTION, MODEL, record_demo
from tests.core.helpers import answer, react

APP = str(Path(__file__).resolve().parents[2] / "app.py")
TIMEOUT = 30


@pytest.fixture
def demo(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[SessionStore, str]]:
    """The demo session in a fresh store that the app opens too."""
    monkeypatch.setenv("SPARROW_DATA_DIR", str(tmp_path))
    st.cache_resource.clear()
    store = SessionStore.open()
    yield store, record_demo(store)
    store.close()
    st.cache_resource.clear()


def chat_on(session_id: str, turn: int | None = None) -> AppTest:
    """The Chat page with the session open; ``turn`` (1-based): click its Trace button."""
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.query_params["session"] = session_id
    at.run()
    if turn is not None:
        at.button(key=[b.key for b in at.button if (b.key or "").startswith("select_")][turn - 1]).click().run()
    assert not at.exception, at.exception
    return at


def steps(at: AppTest) -> list[tuple[str, bool]]:
    return [(e.label, e.proto.expanded) for e in at.expander if e.label.startswith("Step")]


def test_each_step_says_what_happened_and_failing_steps_open(demo: tuple[SessionStore, str]) -> None:
    _, session_id = demo
    ok = steps(chat_on(session_id, 1))
    assert [(label.split(" · ")[:2], label.rsplit(" ", 1)[-1], opened) for label, opened in ok] == [
        (["Step 1", "calculator"], ":green-badge[ok]", False),
        (["Step 2", "date_calculator"], ":green-badge[ok]", False),
        (["Step 3", "Final Answer"], ":green-badge[answer]", False),
    ]
    failing = steps(chat_on(session_id, 2))
    assert ":red-badge[tool error]" in failing[0][0] and failing[0][1] is True and failing[1][1] is False
    retries = steps(chat_on(session_id, 3))
    assert ":orange-badge[unusable reply · retry 1 of 2]" in retries[0][0] and retries[0][1] is True
    assert ":violet-badge[repeat of step 2, not run again]" in retries[2][0]  # the engine's repeat guard said so
    limit = chat_on(session_id, 5)
    assert ":red-badge[step limit reached]" in steps(limit)[-1][0] and steps(limit)[-1][1] is True
    assert any("reached the step limit (2 steps)" in e.value for e in limit.error)
    stopped = chat_on(session_id, 6)
    assert ":gray-badge[stopped by user]" in steps(stopped)[0][0] and steps(stopped)[0][1] is False
    assert not stopped.error and "Stopped by the user." in [i.value for i in stopped.info]


def test_a_malformed_native_call_shows_the_raw_text_the_model_sent(demo: tuple[SessionStore, str]) -> None:
    store, session_id = demo
    at = chat_on(session_id, 4)
    assert '{"expression": "2 +' in [c.value for c in at.code]
    assert "{}" not in [c.value for c in at.code]
    turn = Transcript.from_events(store.log.events(session_id)).turns[3]
    assert raw_arguments(turn.steps[0], turn.steps[0].actions[0]) == '{"expression": "2 +'
    assert repeated_from(turn, 0) is None


def test_each_tool_error_is_shown_once(demo: tuple[SessionStore, str]) -> None:
    _, session_id = demo
    at = chat_on(session_id, 2)
    page = [e.value for e in at.error] + [c.value for c in at.code] + [m.value for m in at.markdown]
    assert sum("division by zero" in text for text in page) == 1


def test_a_question_that_looks_like_markdown_is_shown_literally(demo: tuple[SessionStore, str]) -> None:
    _, session_id = demo
    at = chat_on(session_id)
    assert literal(MARKDOWN_QUESTION) in [m.value for m in at.markdown]
    assert r"\_\_import\_\_('os')" in literal(MARKDOWN_QUESTION) and r"\:red\[red\]" in literal(MARKDOWN_QUESTION)


def test_literal_leaves_plain_text_alone() -> None:
    assert literal("date_calculator · Error: 17:30 · 17 × 23 = 391") == "date_calculator · Error: 17:30 · 17 × 23 = 391"
    assert literal("# not a heading\n1. not a list") == "\\# not a heading  \n1\\. not a list"


def test_every_string_has_chinese() -> None:
    missing = [key for key, entry in STRINGS.items() if not entry.get("zh", "").strip()]
    assert missing == []


def test_tokens_read_the_same_everywhere() -> None:
    from agent_core.formatting import format_token_flow

    assert format_token_flow(729, 23) == "729 → 23 tokens"
    assert format_token_flow(3449, None, estimated=True, unit="token") == "~3.4k → — token"


def test_replay_opens_the_traces_page_on_that_turns_replay(demo: tuple[SessionStore, str]) -> None:
    store, session_id = demo
    second = Transcript.from_events(store.log.events(session_id)).turns[1].run_id
    at = chat_on(session_id)
    at.button(key=f"replay_{second}").click().run()
    assert not at.exception, at.exception
    assert at.selectbox(key="traces_run.en").value == second
    assert at.session_state["_traces_tab_index"] == 2
    assert any(b.label == "Next step" for b in at.button)  # the replay player is drawn


def test_a_step_the_client_had_to_retry_says_after_what(demo: tuple[SessionStore, str]) -> None:
    store, _ = demo
    session = store.sessions.create()
    replies = [
        Reply(status=503),
        react("Multiply.", "calculator", expression="6 * 7"),
        Reply(status=429),
        Reply(status=502),
        answer("Done.", "6 × 7 = 42."),
    ]
    with FakeOpenAIServer(replies) as server:
        model = OpenAIChatModel(MODEL, api_key="sk-test", base_url=server.base_url, timeout=5)
        list(run_in_session(store, session.id, Agent(model, tools=builtin_tools()), "What is 6 * 7?"))
    labels = [label for label, _ in steps(chat_on(session.id, 1))]
    assert ":orange-badge[retried after 503]" in labels[0] and ":green-badge" not in labels[0]
    assert ":orange-badge[retried after 429, 502]" in labels[1]
    first = store.log.events(session.id)
    assert [e.retried_after for e in first if isinstance(e, ModelFinished)] == [("503",), ("429", "502")]
