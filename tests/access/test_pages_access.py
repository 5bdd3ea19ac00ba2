"""The pages with sign-in configured, through AppTest: the Sign in screen, each user's own sessions, share links.

AppTest cannot run ``st.login``, so the signed-in user comes through the app's one seam, ``auth.user_claims``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from agent_core.store import Actor, SessionStore
from sparrow_ui.access import auth
from tests.store.helpers import arithmetic_agent, run

APP = str(Path(__file__).resolve().parents[2] / "app.py")
AUTH = {
    "redirect_uri": "http://localhost:8501/oauth2callback",
    "cookie_secret": "a-test-cookie-secret",
    "client_id": "sparrow",
    "client_secret": "secret",
    "server_metadata_url": "http://127.0.0.1:9/.well-known/openid-configuration",
}
ALICE = {"sub": "sub-alice", "email": "alice@example.com", "is_logged_in": True}
BOB = {"sub": "sub-bob", "email": "bob@example.com", "is_logged_in": True}


@pytest.fixture(autouse=True)
def _fresh_resources() -> Iterator[None]:
    st.cache_resource.clear()
    yield
    st.cache_resource.clear()


@pytest.fixture
def store() -> Iterator[SessionStore]:
    """The app's database (SPARROW_DATA_DIR is a fresh directory per test), as the local admin."""
    opened = SessionStore.open()
    yield opened
    opened.close()


def app(
    monkeypatch: pytest.MonkeyPatch,
    user: dict[str, Any] | None,
    page: str | None = None,
    *,
    auth_secrets: dict[str, Any] | None = None,
    **params: str,
) -> AppTest:
    """The app with ``[auth]`` configured (``AUTH`` unless given) and ``user`` signed in (None: nobody), run once."""
    monkeypatch.setattr(auth, "user_claims", lambda: user)
    at = AppTest.from_file(APP, default_timeout=30)
    at.secrets["auth"] = auth_secrets or AUTH
    at.secrets["sparrow"] = {"admins": ["boss@example.com"]}
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    if page:
        at.switch_page(page).run()
    assert not at.exception, at.exception
    return at


def page_text(at: AppTest) -> str:
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption] + [h.value for h in at.header]
    parts += [w.value for w in at.warning] + [e.value for e in at.error] + [i.value for i in at.info]
    parts += [s.value for s in at.subheader] + [b.label for b in at.button]
    parts += [option for box in at.selectbox for option in box.options]
    return "\n".join(str(p) for p in parts).replace("\\", "")  # titles come Markdown-escaped


def owned_session(store: SessionStore, actor: Actor, question: str) -> str:
    session = store.acting_as(actor).sessions.create()
    run(store.acting_as(actor), session.id, arithmetic_agent(), question)
    return session.id


def test_every_page_asks_for_sign_in_first(monkeypatch: pytest.MonkeyPatch, store: SessionStore) -> None:
    owned_session(store, Actor.user("sub-alice"), "What is 6*7?")
    for page in (None, "pages/sessions.py", "pages/traces.py", "pages/memory.py"):
        at = app(monkeypatch, None, page)
        assert [h.value for h in at.header] == ["Sign in to Sparrow"], page
        assert [b.label for b in at.button] == ["Sign in"] and not at.chat_input
        assert "6*7" not in page_text(at)


def test_a_user_sees_only_their_own_sessions(monkeypatch: pytest.MonkeyPatch, store: SessionStore) -> None:
    alice = owned_session(store, Actor.user("sub-alice", "alice@example.com"), "What is 6*7?")
    bob = owned_session(store, Actor.user("sub-bob", "bob@example.com"), "What is 12*12?")
    at = app(monkeypatch, ALICE, session=alice)
    text = page_text(at)
    assert "Signed in as alice@example.com" in text and "Sign out" in text and "6*7" in text
    at = app(monkeypatch, ALICE, session=bob)  # Bob's session by URL
    text = page_text(at)
    assert f"Session {bob} does not exist, or it is not yours" in text and "12*12" not in text
    sessions = page_text(app(monkeypatch, ALICE, "pages/sessions.py"))
    assert "6*7" in sessions and "12*12" not in sessions and bob not in sessions
    traces = page_text(app(monkeypatch, BOB, "pages/traces.py"))
    assert "12*12" in traces and "6*7" not in traces and "Started by bob@example.com" in traces


def test_an_admin_sees_everyone_and_claims_what_has_no_owner(
    monkeypatch: pytest.MonkeyPatch, store: SessionStore
) -> None:
    owned_session(store, Actor.user("sub-alice", "alice@example.com"), "What is 6*7?")
    old = owned_session(store, Actor(None, is_admin=True), "What is 2*3?")
    boss = {"sub": "sub-boss", "email": "boss@example.com", "email_verified": True}
    at = app(monkeypatch, boss, "pages/sessions.py")
    text = page_text(at)
    assert "6*7" in text and "2*3" in text and "owner sub-alice" in text and "no owner" in text
    assert "admin" in text
    at.button(key=f"claim_{old}").click().run()
    assert store.sessions.get(old).owner == "sub-boss"


def test_a_share_link_shows_one_session_read_only_until_revoked(
    monkeypatch: pytest.MonkeyPatch, store: SessionStore
) -> None:
    alice = Actor.user("sub-alice", "alice@example.com")
    shared = owned_session(store, alice, "What is 6*7?")
    owned_session(store, alice, "What is 12*12?")
    token, link = store.acting_as(alice).shares.create(shared, allow_anonymous=True)
    at = app(monkeypatch, None, share=token)
    text = page_text(at)
    assert "viewing a shared session, read-only" in text and "6*7" in text and "12*12" not in text
    assert not at.chat_input and "Sign in" not in text and "Resume" not in text
    assert not [e for e in at.sidebar.expander]  # no model or agent settings
    assert not at.sidebar.get("file_uploader") and "New chat" not in text
    traces = app(monkeypatch, None, "pages/traces.py", share=token)
    assert "6*7" in page_text(traces) and "12*12" not in page_text(traces)
    assert [b.proto.label for b in traces.get("download_button")] == ["Download report (HTML)"]
    private = store.acting_as(alice).shares.create(shared)[0]  # for signed-in viewers only
    assert "Leave the shared view" not in text  # someone not signed in has nothing else to go to
    sign_in_screen = app(monkeypatch, None, share=private)
    assert [h.value for h in sign_in_screen.header] == ["Sign in to Sparrow"]
    kept = [h.proto.body for h in sign_in_screen.get("html") if "sessionStorage" in h.proto.body]
    assert len(kept) == 1 and f'"{private}"' in kept[0]  # the link waits in the tab while its visitor signs in
    at_bob = app(monkeypatch, BOB, share=private)
    viewed_by_bob = page_text(at_bob)
    assert "6*7" in viewed_by_bob and "Signed in as bob@example.com" in viewed_by_bob and "read-only" in viewed_by_bob
    at_bob.button(key="share_leave").click().run()  # back to his own work
    assert "6*7" not in page_text(at_bob) and at_bob.chat_input and "share" not in at_bob.query_params
    store.acting_as(alice).shares.revoke(link.id)
    text = page_text(app(monkeypatch, None, share=token))
    assert "This share link is not valid" in text and "6*7" not in text


def test_two_open_tabs_rerun_in_turn_and_each_sees_only_its_users(
    monkeypatch: pytest.MonkeyPatch, store: SessionStore
) -> None:
    """What a page run looks up once (the signed-in identity, the secrets, the store) stays with its own tab."""
    owned_session(store, Actor.user("sub-alice", "alice@example.com"), "What is 6*7?")
    owned_session(store, Actor.user("sub-bob", "bob@example.com"), "What is 12*12?")
    tabs = [(app(monkeypatch, ALICE, "pages/sessions.py"), ALICE, "6*7", "12*12")]
    tabs.append((app(monkeypatch, BOB, "pages/sessions.py"), BOB, "12*12", "6*7"))
    for _ in range(3):
        for tab, user, mine, theirs in tabs:
            monkeypatch.setattr(auth, "user_claims", lambda user=user: user)
            text = page_text(tab.run())
            assert f"Signed in as {user['email']}" in text and mine in text and theirs not in text
