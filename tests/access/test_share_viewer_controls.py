"""Every control a share link's viewer can reach works (or is not there), on every page the viewer can open."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from streamlit.testing.v1 import AppTest

from agent_core.store import Actor, SessionStore
from tests.access.test_pages_access import app, owned_session, page_text

ALICE = Actor.user("sub-alice", "alice@example.com")
PAGES = [(None, {}), ("pages/traces.py", {}), ("pages/present.py", {}), (None, {"present": "1"})]


@pytest.fixture
def store() -> Iterator[SessionStore]:
    opened = SessionStore.open()
    yield opened
    opened.close()


def viewer_app(monkeypatch: pytest.MonkeyPatch, token: str, page: str | None, params: dict[str, str]) -> AppTest:
    return app(monkeypatch, None, page, share=token, **params)


def reachable_buttons(at: AppTest) -> list[str]:
    return [b.key for b in at.button if b.key and not b.disabled]


def assert_fine(at: AppTest, what: str) -> None:
    assert not at.exception, (what, at.exception)
    shown = page_text(at)
    assert "not found" not in shown.lower() and not at.error, (what, [e.value for e in at.error])


@pytest.mark.parametrize(("page", "params"), PAGES)
def test_every_button_a_viewer_sees_works(
    monkeypatch: pytest.MonkeyPatch, store: SessionStore, page: str | None, params: dict[str, str]
) -> None:
    shared = owned_session(store, ALICE, "What is 6*7?")
    token, _ = store.acting_as(ALICE).shares.create(shared, allow_anonymous=True)
    first = viewer_app(monkeypatch, token, page, params)
    assert_fine(first, f"{page} {params}")
    assert "compare_open" not in reachable_buttons(first)  # Compare is not a viewer's page
    assert "6*7" in page_text(first) or page is not None
    for key in reachable_buttons(first):
        at = viewer_app(monkeypatch, token, page, params)
        at.button(key=key).click().run()
        assert_fine(at, f"{page} {params}: {key}")
        assert at.query_params.get("share") == token, key  # still the shared view


def test_an_empty_shared_session_offers_no_examples_to_import(
    monkeypatch: pytest.MonkeyPatch, store: SessionStore
) -> None:
    empty = store.acting_as(ALICE).sessions.create().id
    token, _ = store.acting_as(ALICE).shares.create(empty, allow_anonymous=True)
    at = viewer_app(monkeypatch, token, None, {})
    assert_fine(at, "empty")
    assert not reachable_buttons(at), reachable_buttons(at)


def test_a_viewer_watching_a_live_run_cannot_approve_its_calls(monkeypatch: pytest.MonkeyPatch) -> None:
    from agent_core.testing import FakeOpenAIServer
    from agent_core.testing.rule_llm import rule_reply
    from tests.app.test_chat_page import APP, TIMEOUT, ask, open_app, texts

    with FakeOpenAIServer(rule_reply) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        owner = ask(open_app(), "Please fetch http://127.0.0.1:9/page")  # waits for an approval
        assert "Allow it?" in texts(owner)
        value = owner.query_params["session"]
        session_id = value[0] if isinstance(value, list) else value
        store = SessionStore.open()
        token, _ = store.shares.create(session_id, allow_anonymous=True)
        store.close()
        viewer = AppTest.from_file(APP, default_timeout=TIMEOUT)
        viewer.query_params["share"] = token
        viewer.run()
        assert not viewer.exception and "read-only" in page_text(viewer)
        assert not [b.key for b in viewer.button if b.key and b.key.startswith(("approve_", "deny_"))]
        next(b for b in owner.button if b.key and b.key.startswith("approve_")).click().run()
        assert "The fetch tool said:" in texts(owner)  # the owner still decides
