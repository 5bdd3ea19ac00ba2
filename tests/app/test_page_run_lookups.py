"""A page run reads the secrets, the language and the datasets once, not once per string or turn drawn."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.runtime.secrets import Secrets
from streamlit.testing.v1 import AppTest

from agent_core.experiments.datasets import list_datasets
from agent_core.store import SessionStore
from sparrow_ui.access import auth
from sparrow_ui.chat import add_to_dataset
from sparrow_ui.shell import settings
from tests.access.test_pages_access import AUTH
from tests.observability.builders import calculator_run

APP = str(Path(__file__).resolve().parents[2] / "app.py")


@pytest.fixture
def secrets_reads(monkeypatch: pytest.MonkeyPatch) -> list[None]:
    """One entry for each time Streamlit looks the secrets up (without a file: a search of the disk each time)."""
    seen: list[None] = []
    parse = Secrets._parse

    def counted(self: Secrets) -> object:
        seen.append(None)
        return parse(self)

    monkeypatch.setattr(Secrets, "_parse", counted)
    return seen


def chat_of(store: SessionStore, *, turns: int) -> AppTest:
    """The Chat page, run once, on a new session of ``turns`` finished calculator runs."""
    session = store.sessions.create()
    for n in range(turns):
        store.log.append(session.id, calculator_run(f"r{n}"))
    at = AppTest.from_file(APP, default_timeout=30)
    at.query_params["session"] = session.id
    return at.run()


def test_a_chat_page_run_reads_the_secrets_and_the_language_once(
    monkeypatch: pytest.MonkeyPatch, store: SessionStore, secrets_reads: list[None]
) -> None:
    languages: list[str] = []
    get = settings.get
    monkeypatch.setattr(settings, "get", lambda key: languages.append(key) or get(key))
    at = chat_of(store, turns=5)
    assert not at.exception and "weekday is 2024-13-01" in "\n".join(m.value for m in at.markdown)
    secrets_reads.clear()
    languages.clear()
    at.run()
    assert len(secrets_reads) <= 2  # app.py's navigation and the page each start a page run; it was ~600
    assert languages.count(settings.LANGUAGE) <= 3  # the URL's copy, the picker, the strings; it was ~500


def test_the_language_picked_applies_in_the_same_run() -> None:
    at = AppTest.from_file(APP, default_timeout=30)
    at.run()
    at.segmented_control(key="lang_choice").set_value("zh").run()
    assert at.subheader[0].value == "连接一个模型即可开始对话"
    at.segmented_control(key="lang_choice").set_value("en").run()
    assert at.subheader[0].value == "Connect a model to start chatting"


def test_secrets_that_appear_between_runs_are_seen_at_the_next_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(auth, "user_claims", lambda: None)  # AppTest cannot sign in: nobody is
    at = AppTest.from_file(APP, default_timeout=30)
    at.run()
    assert at.chat_input(key="question") is not None and "Sign in" not in [b.label for b in at.button]
    at.secrets["auth"] = AUTH  # an operator adds sign-in while the tab is open
    at.run()
    assert [h.value for h in at.header] == ["Sign in to Sparrow"]


def test_the_datasets_are_asked_once_per_page_run_not_once_per_turn(
    monkeypatch: pytest.MonkeyPatch, store: SessionStore
) -> None:
    asked: list[None] = []
    listed = add_to_dataset.list_datasets
    monkeypatch.setattr(add_to_dataset, "list_datasets", lambda s: asked.append(None) or listed(s))
    at = chat_of(store, turns=20)
    asked.clear()
    at.run()
    assert len([b for b in at.button if b.key and b.key.startswith("select_")]) == 20  # 20 turns, each with actions
    assert len(asked) == 1  # it was one query per turn drawn
    asked.clear()
    at.button(key="FormSubmitter:add_ds_r3-Add").click().run()
    assert not at.exception and [d.name for d in list_datasets(store)] == [add_to_dataset.DEFAULT_DATASET]
    assert "Added to My questions v1 (1 items)." in [s.value for s in at.success]
    assert len(asked) == 2  # the turns drawn after the save ask again: they list the new dataset
