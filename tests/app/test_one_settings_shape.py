"""One settings shape: what the sidebar (and the Tools page) set reaches RunStarted and the session's config unchanged,
survives a reload through the settings file, and "no limit" is None in each of them."""

from __future__ import annotations

import json
from pathlib import Path

from streamlit.testing.v1 import AppTest

from agent_core.engine.approvals import app_defaults
from agent_core.engine.run_context import AgentSettings
from agent_core.events import RunStarted, StepStarted
from agent_core.runtime.run_settings import RunSettings
from agent_core.runtime.sessions import CONSENT_UNSET
from agent_core.store import SessionStore
from agent_core.testing import FakeOpenAIServer
from sparrow_ui.shell.settings import settings_path

TIMEOUT = 30
APP = str(Path(__file__).resolve().parents[2] / "app.py")
CHOSEN = {"max_steps": 7, "temperature": 0.3, "max_tools": 2, "max_tokens": 512, "repeat_policy": "allow"}


def open_app() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.run()
    assert not at.exception, at.exception
    return at


def choose(at: AppTest, max_tools: int | None) -> None:
    """Set every agent setting the sidebar has, and trust ``remember`` on the Tools page."""
    at.slider(key="cfg_max_steps").set_value(CHOSEN["max_steps"]).run()
    at.slider(key="cfg_temperature").set_value(CHOSEN["temperature"]).run()
    at.number_input(key="cfg_max_tools").set_value(max_tools).run()
    at.number_input(key="cfg_max_tokens").set_value(CHOSEN["max_tokens"]).run()
    at.selectbox(key="cfg_repeat_policy.en").set_value(CHOSEN["repeat_policy"]).run()
    at.switch_page("pages/tools.py").run()
    at.toggle(key="ask_first_remember").set_value(False).run()
    at.switch_page("pages/chat.py").run()
    assert not at.exception, at.exception


def shown(at: AppTest) -> dict[str, object]:
    """What the sidebar's agent settings show."""
    return {
        "max_steps": at.slider(key="cfg_max_steps").value,
        "temperature": at.slider(key="cfg_temperature").value,
        "max_tools": at.number_input(key="cfg_max_tools").value,
        "max_tokens": at.number_input(key="cfg_max_tokens").value,
        "repeat_policy": at.selectbox(key="cfg_repeat_policy.en").value,
    }


def recorded(store: SessionStore) -> tuple[dict[str, object], dict[str, object]]:
    """The settings of the one run in the store, as RunStarted and as the session's config hold them."""
    (session,) = store.sessions.list()
    (started,) = [e for e in store.log.events(session.id) if isinstance(e, RunStarted)]
    return started.settings, store.sessions.get(session.id).config.settings


def test_what_the_sidebar_sets_is_what_the_run_records(fake_llm: FakeOpenAIServer, store: SessionStore) -> None:
    at = open_app()
    choose(at, max_tools=CHOSEN["max_tools"])
    at.chat_input(key="question").set_value("What is 6 * 7?").run()
    assert not at.exception and any("42" in m.value for m in at.markdown)
    in_event, in_config = recorded(store)
    trusted = {**app_defaults(), "remember": False}
    expected = AgentSettings(max_steps=7, temperature=0.3, max_tools=2, max_tokens=512, repeat_policy="allow",
                             tool_approval=trusted).to_record()  # fmt: skip
    assert {k: expected[k] for k in CHOSEN} == CHOSEN
    assert in_event == expected
    assert in_config == {**expected, **CONSENT_UNSET}  # the consent stays with the run it was given for
    assert fake_llm.requests[-1]["max_tokens"] == 512 and fake_llm.requests[-1]["temperature"] == 0.3


def test_the_settings_and_the_approval_choice_survive_a_reload() -> None:
    first = open_app()
    choose(first, max_tools=CHOSEN["max_tools"])
    kept = first.session_state["_sparrow_settings"]
    saved = settings_path().read_text(encoding="utf-8")
    assert RunSettings.model_validate_json(saved) == kept and kept.agent.tool_approval == {"remember": False}
    reloaded = open_app()  # a new browser session of the same server
    assert shown(reloaded) == CHOSEN
    assert reloaded.session_state["_sparrow_settings"] == kept
    reloaded.switch_page("pages/tools.py").run()
    assert reloaded.toggle(key="ask_first_remember").value is False


def test_no_limit_is_none_in_the_sidebar_the_file_the_event_and_the_config(
    fake_llm: FakeOpenAIServer, store: SessionStore
) -> None:
    at = open_app()
    choose(at, max_tools=None)
    assert at.number_input(key="cfg_max_tools").value is None
    assert json.loads(settings_path().read_text(encoding="utf-8"))["agent"]["max_tools"] is None
    at.chat_input(key="question").set_value("What is 6 * 7?").run()
    in_event, in_config = recorded(store)
    assert in_event["max_tools"] is None and in_config["max_tools"] is None
    (session,) = store.sessions.list()
    events = store.log.events(session.id)
    every = {spec["function"]["name"] for e in events if isinstance(e, RunStarted) for spec in e.tools}
    offered = [set(e.offered_tools) for e in events if isinstance(e, StepStarted)]
    assert len(every) > 2 and offered and all(step == every for step in offered)  # each step offered every tool


def test_a_settings_file_of_the_earlier_shape_loads_with_its_no_limit_as_none() -> None:
    path = settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    earlier = {"cfg_model": "qwen2.5:7b", "cfg_max_steps": 4, "cfg_max_tools": 0, "cfg_tools": None}
    path.write_text(json.dumps({**earlier, "cfg_repeat_policy": "stop", "cfg_max_tokens": 1024}), encoding="utf-8")
    at = open_app()
    assert at.text_input(key="cfg_model").value == "qwen2.5:7b"
    assert (at.slider(key="cfg_max_steps").value, at.number_input(key="cfg_max_tools").value) == (4, None)
    assert at.selectbox(key="cfg_repeat_policy.en").value == "stop"
    assert at.number_input(key="cfg_max_tokens").value == 1024
