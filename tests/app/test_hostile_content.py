"""The app facing hostile endpoints and content: one plain sentence, never a traceback or a remote image."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from streamlit.testing.v1 import AppTest

from agent_core import Agent
from agent_core.guards.json_limits import MAX_COUNT, MAX_DURATION_MS
from agent_core.runtime.session_runs import run_in_session
from agent_core.store import SessionStore, import_session
from agent_core.testing import FakeOpenAIServer, ScriptedModel
from agent_core.tools import calculator
from sparrow_ui.translations.strings_traces import STRINGS as TRACES_STRINGS
from tests.app.test_chat_page import APP, TIMEOUT, ask, open_app, texts
from tests.core.test_endpoint_errors import HTML, WEB_PAGE


@pytest.fixture
def web_page(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAIServer]:
    """A base URL that serves a web page with status 200."""
    with FakeOpenAIServer(web_page=HTML) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-apptest-key")
        yield server


def test_test_connection_names_a_web_page(web_page: FakeOpenAIServer) -> None:
    at = open_app()
    at.button(key="cfg_test").click().run()
    assert [e.value for e in at.error] == [
        f"Connection failed: {web_page.base_url} {WEB_PAGE} (for example http://localhost:11434/v1 for Ollama)."
    ]
    assert not at.exception


def test_a_question_to_a_web_page_gets_the_same_sentence(web_page: FakeOpenAIServer) -> None:
    at = ask(open_app(), "What is 6 * 7?")
    assert f"{web_page.base_url} {WEB_PAGE}" in texts(at)
    assert "internal error" not in texts(at).lower()
    assert len(web_page.requests) == 1


IMAGE = "![pixel](http://evil.example/p.png)"
REF_IMAGE = "![a [b] c][r]\n\n[r]: http://evil.example/ref.png"
HOSTILE_TEXT = f"{IMAGE} {REF_IMAGE} <img src=http://evil.example/h.png>"


def rendered_as_markdown(at: AppTest) -> list[str]:
    """Every string the page hands to Streamlit's Markdown renderer (bodies, alerts, captions, labels)."""
    values = [m.value for m in at.markdown] + [c.value for c in at.caption]
    values += [e.value for e in [*at.error, *at.warning, *at.info, *at.success]]
    values += [e.label for e in at.expander] + [s.label for s in at.status] + [tb.label for tb in at.tabs]
    return [str(v) for v in values]


def assert_no_fetch(at: AppTest) -> None:
    shown = rendered_as_markdown(at)
    assert shown, "nothing rendered: the check would prove nothing"
    for value in shown:
        assert "![" not in value and "<img" not in value.lower(), value
    assert not [m.value for m in at.markdown if m.proto.allow_html]


def hostile_session(store: SessionStore) -> str:
    """A session whose question, thought, tool call, tool error, answer and title all carry images."""
    session = store.sessions.create(title=f"Imported {IMAGE}")
    replies = [
        f'Thought: {IMAGE}\nAction: calculator\nAction Input: {{"expression": "{IMAGE}"}}',
        f"Thought: {REF_IMAGE}\nFinal Answer: {HOSTILE_TEXT}",
    ]
    agent = Agent(ScriptedModel(replies), tools=[calculator])
    list(run_in_session(store, session.id, agent, f"Question {HOSTILE_TEXT}"))
    return session.id


def test_hostile_content_never_becomes_an_image_on_any_page(store: SessionStore) -> None:
    session_id = hostile_session(store)
    store.close()
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.query_params["session"] = session_id
    at.run()
    assert not at.exception
    for expander in at.expander:
        expander.proto.expanded = True
    assert "evil.example" in "\n".join(rendered_as_markdown(at))  # the hostile text is there, disarmed
    assert_no_fetch(at)
    for page in ("pages/sessions.py", "pages/traces.py"):
        at.switch_page(page).run()
        assert not at.exception, at.exception
        assert_no_fetch(at)


def extreme_document() -> str:
    """A session file at every limit import allows (``json_limits``): it must render everywhere."""
    from tests.store.test_import_limits import nested, of_type, valid_document

    document = json.loads(json.dumps(valid_document()))
    of_type(document, "model_finished")["latency_ms"] = MAX_DURATION_MS
    of_type(document, "model_finished")["usage"]["prompt_tokens"] = MAX_COUNT
    of_type(document, "tool_started")["arguments"] = {"x": nested(60)}
    of_type(document, "tool_finished")["details"] = {"tiny": 5e-324, "big": -(2**53)}
    of_type(document, "tool_finished")["duration_ms"] = MAX_DURATION_MS
    document["events"][0]["ts"] = 0.0
    document["events"][-1]["ts"] = 4_102_444_800.0
    document["session"]["updated_at"] = 4_102_444_800.0
    document["session"]["title"] = f"Edge {IMAGE}"
    return json.dumps(document)


def test_a_session_at_every_import_limit_renders_on_every_page(store: SessionStore) -> None:
    info = import_session(store, extreme_document())
    store.close()
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.query_params["session"] = info.id
    at.run()
    assert not at.exception, at.exception
    assert_no_fetch(at)
    for page in ("pages/sessions.py", "pages/traces.py"):
        at.switch_page(page).run()
        assert not at.exception, at.exception
    for tab in ("traces.tab.session", "traces.tab.replay"):
        at.session_state["traces_tab"] = TRACES_STRINGS[tab]["en"]
        at.run()
        assert not at.exception, at.exception
