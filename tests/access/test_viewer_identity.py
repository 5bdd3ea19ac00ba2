"""A share link names nobody: on every page its viewer can reach, and in every file it can download, the owner's key,
subject and email appear nowhere (a neutral "someone" says who started each run)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from agent_core.models.pricing import PriceTable
from agent_core.store import SessionStore
from agent_core.store.access import HIDDEN_IDENTITY, owner_key
from agent_core.trace_export import FORMATS
from sparrow_ui.access import auth
from sparrow_ui.trace.trace_downloads import exporter
from tests.access.test_pages_access import ALICE as ALICE_CLAIMS
from tests.access.test_pages_access import BOB, app, owned_session
from tests.store.helpers import arithmetic_agent, run

ISSUER = "https://id.example.com"
ALICE_CLAIMS_ISS = {**ALICE_CLAIMS, "iss": ISSUER}
ALICE = auth.actor_of(ALICE_CLAIMS_ISS)
ALICE_IDS = (owner_key(ISSUER, "sub-alice"), "sub-alice", "alice@example.com")
VIEWERS = {"anonymous": None, "signed-in": {**BOB, "iss": ISSUER}}
PAGES = [
    (None, {}, None),
    ("pages/traces.py", {}, 0),
    ("pages/traces.py", {}, 1),
    ("pages/traces.py", {}, 2),
    ("pages/present.py", {}, None),
    (None, {"present": "1"}, None),
]
"""(page, query parameters, Traces tab): every page a share link opens, each Traces tab drawn."""


@pytest.fixture
def store() -> Iterator[SessionStore]:
    opened = SessionStore.open()
    yield opened
    opened.close()


@pytest.fixture
def shared(store: SessionStore) -> tuple[str, str]:
    """Alice's session with two runs she started, and an anonymous share link of it: (session id, token)."""
    session_id = owned_session(store, ALICE, "What is 6*7?")
    run(store.acting_as(ALICE), session_id, arithmetic_agent(), "What is 2*3?")
    token, _ = store.acting_as(ALICE).shares.create(session_id, allow_anonymous=True)
    return session_id, token


def rendered(at: AppTest) -> str:
    """Everything the page sent to the browser: every element's message, sidebar and main, as text."""
    found: list[str] = []

    def visit(node: Any) -> None:
        proto = getattr(node, "proto", None)
        if proto is not None:
            found.append(str(proto))
        for child in getattr(node, "children", {}).values():
            visit(child)

    visit(at._tree)
    return "\n".join(found)


def named(text: str) -> list[str]:
    return [i for i in ALICE_IDS if i in text]


@pytest.mark.parametrize("who", VIEWERS)
@pytest.mark.parametrize(("page", "params", "tab"), PAGES)
def test_no_page_a_viewer_reaches_names_the_owner(
    monkeypatch: pytest.MonkeyPatch,
    shared: tuple[str, str],
    who: str,
    page: str | None,
    params: dict[str, str],
    tab: int | None,
) -> None:
    _, token = shared
    at = app(monkeypatch, VIEWERS[who], page, share=token, **params)
    if tab is not None:
        at.session_state["_traces_tab_index"] = tab
        at.run()
    assert not at.exception, at.exception
    text = rendered(at)
    assert "What is 2" in text or page == "pages/present.py" or params  # the shared session is what is drawn
    assert named(text) == [], f"{page} {params} tab {tab}"
    if page == "pages/traces.py" and tab == 0:
        assert HIDDEN_IDENTITY in text  # "Started by someone"


def test_the_owner_still_sees_who_started_each_run(monkeypatch: pytest.MonkeyPatch, shared: tuple[str, str]) -> None:
    at = app(monkeypatch, ALICE_CLAIMS_ISS, "pages/traces.py")
    assert "alice@example.com" in rendered(at)


@pytest.mark.parametrize("fmt", FORMATS)
def test_no_file_a_viewer_downloads_names_the_owner(store: SessionStore, shared: tuple[str, str], fmt: str) -> None:
    session_id, token = shared
    viewer = store.acting_as(store.shares.open(token).actor())
    text = exporter(viewer, viewer.sessions.get(session_id), fmt, PriceTable(), content=True)()  # type: ignore[arg-type]
    assert "6*7" in text and named(text) == []
    owner_text = exporter(store.acting_as(ALICE), store.sessions.get(session_id), fmt, PriceTable())()  # type: ignore[arg-type]
    assert "alice@example.com" in owner_text  # the same export, made by the owner, says who
