"""The Chat page through AppTest: onboarding, a full turn with its trace, save/load, upload, errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from agent_core.store import SessionStore, export_session, import_session
from agent_core.testing import FakeOpenAIServer
from agent_core.testing.rule_llm import TWO_TOOLS
from tests.core.helpers import TWO_TOOLS_ANSWER

TIMEOUT = 30
APP = str(Path(__file__).resolve().parents[2] / "app.py")


def open_app() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.run()
    assert not at.exception, at.exception
    return at


def texts(at: AppTest) -> str:
    """Everything written on the page (markdown, captions, code, text), for whole-page assertions."""
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption] + [c.value for c in at.code]
    parts += [t.value for t in at.text] + [e.label for e in at.expander]
    parts += [w.value for w in at.warning] + [e.value for e in at.error] + [s.value for s in at.subheader]
    return "\n".join(str(p) for p in parts)


def ask(at: AppTest, question: str) -> AppTest:
    at.chat_input(key="question").set_value(question).run()
    assert not at.exception, at.exception
    return at


def test_onboarding_without_any_configuration() -> None:
    at = open_app()
    page = texts(at)
    assert "Connect a model to start chatting" in [s.value for s in at.subheader]
    assert "Ollama" in page and "OPENAI_API_KEY" in page and "Sessions page" in page
    assert at.chat_input(key="question").disabled is True
    assert not at.error


def test_onboarding_in_chinese() -> None:
    at = open_app()
    at.segmented_control(key="lang_choice").set_value("zh").run()
    assert [s.value for s in at.subheader] == ["连接一个模型即可开始对话", "追踪", "会话"]
    assert "已保存的会话无需模型也能打开和回放" in texts(at)


def test_a_turn_with_two_tools_shows_answer_trace_and_summary(fake_llm: FakeOpenAIServer) -> None:
    at = ask(open_app(), TWO_TOOLS)
    page = texts(at)
    assert TWO_TOOLS_ANSWER in page
    labels = [e.label for e in at.expander]
    assert [label.split(" · ")[:2] for label in labels if label.startswith("Step")] == [
        ["Step 1", "calculator"],
        ["Step 2", "date_calculator"],
        ["Step 3", "Final Answer"],
    ]
    assert "2 tool calls: calculator ×1, date_calculator ×1" in page
    assert '"expression": "17 * 23"' in page
    assert "2024-05-20 (Monday) + 150 days = 2024-10-17 (Thursday)" in page
    assert "completed · 3 steps" in page
    assert at.query_params["session"]
    assert not at.error and not at.exception


def test_follow_up_uses_the_conversation(fake_llm: FakeOpenAIServer) -> None:
    at = ask(open_app(), "What is 6 * 7?")
    at = ask(at, "Add 10 to that result")
    assert "The result is 52." in texts(at)


def test_the_session_survives_a_new_browser_tab(fake_llm: FakeOpenAIServer) -> None:
    at = ask(open_app(), "What is 6 * 7?")
    session_id = (
        at.query_params["session"][0] if isinstance(at.query_params["session"], list) else at.query_params["session"]
    )
    again = AppTest.from_file(APP, default_timeout=TIMEOUT)
    again.query_params["session"] = session_id
    again.run()
    assert "The result is 42." in texts(again)


def test_save_snapshot_and_fork_it_from_the_sessions_page(fake_llm: FakeOpenAIServer, store: SessionStore) -> None:
    at = ask(open_app(), "What is 6 * 7?")
    at.text_input(key="snapshot_name").set_value("after the first answer")
    at.button(key="snapshot_save").click().run()
    (session,) = store.sessions.list()
    assert [s.name for s in store.snapshots.list(session.id)] == ["after the first answer"]
    sessions_page = at.switch_page("pages/sessions.py").run()
    assert "after the first answer" in texts(sessions_page)
    fork = next(b for b in sessions_page.button if b.key and b.key.startswith("fork_"))
    fork.click().run()
    assert len(store.sessions.list()) == 2


def test_an_imported_session_opens_with_its_conversation(fake_llm: FakeOpenAIServer, store: SessionStore) -> None:
    # AppTest cannot drive st.file_uploader; the browser test uploads through the real widget.
    ask(open_app(), "What is 6 * 7?")
    (session,) = store.sessions.list()
    imported = import_session(store, export_session(store, session.id))
    fresh = AppTest.from_file(APP, default_timeout=TIMEOUT)
    fresh.query_params["session"] = imported.id
    fresh.run()
    assert "The result is 42." in texts(fresh)
    assert imported.id != session.id


def test_dead_endpoint_shows_a_clear_error_not_a_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    at = ask(open_app(), "What is 6 * 7?")
    page = texts(at)
    assert "No answer (error).\n\nCannot connect to http://127.0.0.1:9/v1: connection failed or refused" in page
    assert "Model error: Cannot connect to http://127.0.0.1:9/v1" in page
    assert not at.exception


def test_unknown_session_in_the_url_starts_a_new_chat() -> None:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.query_params["session"] = "ses_does_not_exist"
    at.run()
    assert any("ses_does_not_exist does not exist" in w.value for w in at.warning)
    assert not at.exception


def test_downloaded_file_is_valid_json(fake_llm: FakeOpenAIServer, store: SessionStore) -> None:
    ask(open_app(), "What is 6 * 7?")
    (session,) = store.sessions.list()
    document = json.loads(export_session(store, session.id))
    assert document["format"] and document["version"]


def test_a_call_that_needs_approval_waits_for_a_click_and_runs_when_approved(fake_llm: FakeOpenAIServer) -> None:
    at = ask(open_app(), "Please fetch http://127.0.0.1:9/page")
    assert "The agent wants to run fetch_url. Allow it?" in texts(at)
    assert '"url": "http://127.0.0.1:9/page"' in texts(at)
    approve = next(b for b in at.button if b.key and b.key.startswith("approve_"))
    approve.click().run()
    page = texts(at)
    assert "The fetch tool said: Error: fetch_url refused" in page
    assert "approved" in page
    assert not at.exception


def test_a_denied_call_is_reported_to_the_model(fake_llm: FakeOpenAIServer) -> None:
    at = ask(open_app(), "Please fetch http://127.0.0.1:9/page")
    deny = next(b for b in at.button if b.key and b.key.startswith("deny_"))
    deny.click().run()
    assert "The fetch tool said: Error: the user denied this call to fetch_url." in texts(at)


def test_the_sidebar_totals_count_finished_turns_while_a_run_is_live(fake_llm: FakeOpenAIServer) -> None:
    at = ask(open_app(), "What is 6 * 7?")
    finished = [c.value for c in at.sidebar.caption if "This session:" in c.value]
    assert len(finished) == 1 and "2 steps" in finished[0]
    ask(at, "Please fetch http://127.0.0.1:9/page")  # live: waiting for an approval
    captions = [c.value for c in at.sidebar.caption]
    assert not [c for c in captions if "This session:" in c]  # a live turn's numbers are still moving
    assert [c for c in captions if "Finished turns:" in c] == [finished[0].replace("This session", "Finished turns")]
    next(b for b in at.button if b.key and b.key.startswith("approve_")).click().run()
    totals = [c.value for c in at.sidebar.caption if "This session:" in c.value]
    assert len(totals) == 1 and "4 steps" in totals[0]


def test_an_approval_survives_a_new_tab(fake_llm: FakeOpenAIServer) -> None:
    at = ask(open_app(), "Please fetch http://127.0.0.1:9/page")
    value = at.query_params["session"]
    again = AppTest.from_file(APP, default_timeout=TIMEOUT)
    again.query_params["session"] = value[0] if isinstance(value, list) else value
    again.run()
    assert "The agent wants to run fetch_url. Allow it?" in texts(again)
    next(b for b in again.button if b.key and b.key.startswith("approve_")).click().run()
    assert "The fetch tool said:" in texts(again)


def test_an_interrupted_run_is_offered_for_resume_and_completes(
    fake_llm: FakeOpenAIServer, store: SessionStore
) -> None:
    from agent_core import Agent
    from agent_core.events import ToolFinished
    from agent_core.testing import ScriptedModel
    from tests.core.helpers import react

    session = store.sessions.create()
    model = ScriptedModel([react("First I multiply 17 by 23.", "calculator", expression="17 * 23")])
    events = []
    for event in Agent(model).run(TWO_TOOLS):
        events.append(event)
        if isinstance(event, ToolFinished):
            break  # the process "died" after step 1
    store.log.append(session.id, [e for e in events if e.type != "model_delta"])
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.query_params["session"] = session.id
    at.run()
    assert "This run was interrupted (the server stopped while it was working)." in texts(at)
    next(b for b in at.button if b.label == "Resume the run").click().run()
    page = texts(at)
    assert TWO_TOOLS_ANSWER in page
    assert "Resumed here after an interruption" in page
    assert store.runs.interrupted(session.id) is None


def test_the_open_session_survives_navigating_to_another_page_and_back(fake_llm: FakeOpenAIServer) -> None:
    at = ask(open_app(), "What is 6 * 7?")
    at.switch_page("pages/sessions.py").run()
    at.query_params.pop("session", None)  # the sidebar navigation drops query parameters
    at.switch_page("pages/chat.py").run()
    assert "The result is 42." in texts(at)


def test_settings_keep_their_values_across_a_language_switch() -> None:
    at = open_app()
    at.radio(key="cfg_protocol.en").set_value("tools").run()
    at.segmented_control(key="lang_choice").set_value("zh").run()
    at.run()
    assert not at.exception
    assert at.radio(key="cfg_protocol.zh").value == "tools"
    assert at.session_state["cfg_protocol"] == "tools"


def test_with_tool_retrieval_the_trace_shows_which_tools_were_offered(fake_llm: FakeOpenAIServer) -> None:
    at = open_app()
    at.number_input(key="cfg_max_tools").set_value(2).run()
    ask(at, "What is 6 * 7?")
    page = texts(at)
    assert "The result is 42." in page
    assert "Tools offered: calculator, " in page


def test_test_connection_reports_the_endpoint_and_its_models(fake_llm: FakeOpenAIServer) -> None:
    at = open_app()
    at.button(key="cfg_test").click().run()
    assert [s.value for s in at.success] == [f"Connected to {fake_llm.base_url}: 2 models available."]
    at.text_input(key="cfg_model").set_value("gpt-9").run()
    at.button(key="cfg_test").click().run()
    assert [w.value for w in at.warning] == [f"Connected, but {fake_llm.base_url} does not list the model 'gpt-9'."]


def test_test_connection_to_a_dead_endpoint_is_a_plain_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    at = open_app()
    at.button(key="cfg_test").click().run()
    assert at.error[0].value.startswith("Connection failed: Cannot connect to http://127.0.0.1:9/v1")
    assert not at.exception
