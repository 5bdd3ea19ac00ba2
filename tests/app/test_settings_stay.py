"""Sidebar settings and the UI language survive page changes, a reload (a new browser session) and a new chat."""

from __future__ import annotations

import json
import os
from pathlib import Path

from streamlit.testing.v1 import AppTest

from agent_core.testing import FakeOpenAIServer
from sparrow_ui.shell.settings import settings_path

TIMEOUT = 30
APP = str(Path(__file__).resolve().parents[2] / "app.py")
PAGES = ["pages/sessions.py", "pages/traces.py", "pages/memory.py", "pages/tools.py", "pages/chat.py"]


def open_app() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.run()
    assert not at.exception, at.exception
    return at


def sidebar_values(at: AppTest) -> dict[str, object]:
    """What the sidebar widgets show now (the protocol radio is keyed per language)."""
    protocol = [r.value for r in at.radio if r.key and r.key.startswith("cfg_protocol.")]
    return {
        "lang": at.segmented_control(key="lang_choice").value,
        "model": at.text_input(key="cfg_model").value,
        "base_url": at.text_input(key="cfg_base_url").value,
        "key": at.text_input(key="cfg_api_key").value,
        "protocol": protocol,
        "max_steps": at.slider(key="cfg_max_steps").value,
        "tools": at.multiselect(key="cfg_tools").value,
    }


def change_settings(at: AppTest, base_url: str) -> None:
    at.text_input(key="cfg_model").set_value("fake-model").run()
    at.text_input(key="cfg_api_key").set_value("sk-typed-in-the-sidebar").run()
    at.slider(key="cfg_max_steps").set_value(7).run()
    at.radio(key="cfg_protocol.en").set_value("tools").run()
    at.multiselect(key="cfg_tools").set_value(["calculator", "date_calculator"]).run()
    at.segmented_control(key="lang_choice").set_value("zh").run()
    assert not at.exception, at.exception


EXPECTED = {
    "lang": "zh",
    "model": "fake-model",
    "key": "sk-typed-in-the-sidebar",
    "protocol": ["tools"],
    "max_steps": 7,
    "tools": ["calculator", "date_calculator"],
}


def test_settings_and_language_survive_every_page_and_a_question_runs_with_them(fake_llm: FakeOpenAIServer) -> None:
    at = open_app()
    change_settings(at, fake_llm.base_url)
    for page in PAGES:
        at.switch_page(page).run()
        assert not at.exception, (page, at.exception)
        values = sidebar_values(at)
        assert {k: values[k] for k in EXPECTED} == EXPECTED, page
        assert values["base_url"] == fake_llm.base_url, page
    at.chat_input(key="question").set_value("What is 6 * 7?").run()
    assert not at.exception and not at.error, (at.exception, [e.value for e in at.error])
    assert any("42" in m.value for m in at.markdown)
    request = fake_llm.requests[-1]
    assert request["model"] == "fake-model" and {t["function"]["name"] for t in request["tools"]} == {
        "calculator",
        "date_calculator",
    }
    at.button(key="new_chat").click().run()
    assert {k: sidebar_values(at)[k] for k in EXPECTED} == EXPECTED


def test_a_reload_keeps_the_language_and_settings_but_never_the_key(fake_llm: FakeOpenAIServer) -> None:
    first = open_app()
    change_settings(first, fake_llm.base_url)
    assert first.query_params["lang"] == "zh"
    saved = settings_path().read_text(encoding="utf-8")
    assert "sk-typed-in-the-sidebar" not in saved and "lang_choice" not in json.loads(saved)
    reloaded = AppTest.from_file(APP, default_timeout=TIMEOUT)  # the same URL in a new browser session
    reloaded.query_params["lang"] = "zh"
    reloaded.run()
    values = sidebar_values(reloaded)
    assert {k: values[k] for k in EXPECTED if k != "key"} == {k: v for k, v in EXPECTED.items() if k != "key"}
    assert values["key"] == ""
    assert "追踪" in [s.value for s in reloaded.subheader]
    other_tab = open_app()  # no language in its URL: English, with the saved settings
    assert sidebar_values(other_tab)["lang"] == "en" and sidebar_values(other_tab)["model"] == "fake-model"


def test_an_unreadable_settings_file_falls_back_to_the_environment() -> None:
    path = settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('{"cfg_max_steps": 999}', encoding="utf-8")
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.query_params["lang"] = "klingon"
    at.run()
    assert at.slider(key="cfg_max_steps").value == 10
    assert at.segmented_control(key="lang_choice").value == "en"
    assert os.environ.get("SPARROW_DATA_DIR") and str(path).startswith(os.environ["SPARROW_DATA_DIR"])
