"""Identity: admins only by a verified email, owners keyed by issuer and subject, named providers, migration 0007."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any
from unittest.mock import patch

import pytest
import streamlit
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import inspect

from agent_core.longterm import MemoryStore
from agent_core.store import Actor, SessionNotFound, SessionStore
from agent_core.store.access import admins, owner_key, signed_in
from sparrow_ui.access import auth
from tests.access.test_pages_access import AUTH, app, page_text
from tests.store.helpers import arithmetic_agent, persisted, run

ROOT = Path(__file__).resolve().parents[2]
ISSUER_A, ISSUER_B = "https://id.example.com", "https://login.other.example/tenant/v2.0"


@pytest.fixture
def store() -> Iterator[SessionStore]:
    opened = SessionStore.open()
    yield opened
    opened.close()


EMAILS = st.sampled_from(["boss@example.com", "BOSS@example.com", "eve@example.com", None])
VERIFIED = st.sampled_from([True, False, None, "true", "false", 1])


@settings(max_examples=200)
@given(email=EMAILS, verified=VERIFIED, issuer=st.sampled_from([ISSUER_A, ISSUER_B]), sub=st.sampled_from(["s1", "x"]))
def test_an_email_makes_an_admin_only_when_the_provider_verified_it(
    email: str | None, verified: Any, issuer: str, sub: str
) -> None:
    listed = admins(["boss@example.com", f"{ISSUER_B}#x"])
    claims = {"sub": sub, "iss": issuer, "email": email, "email_verified": verified}
    with patch.object(auth, "configured_admins", lambda: listed):
        actor = auth.actor_of(claims)
    by_email = email is not None and email.lower() == "boss@example.com" and verified in (True, "true")
    assert actor.is_admin == (by_email or (issuer == ISSUER_B and sub == "x"))
    assert actor.owner == f"{issuer}#{sub}"
    assert signed_in(sub, email, listed, issuer=issuer).is_admin == (issuer == ISSUER_B and sub == "x")


def test_owner_keys_keep_issuers_apart() -> None:
    assert owner_key(ISSUER_A, "same") != owner_key(ISSUER_B, "same")
    assert owner_key(None, "same") == "same"
    with pytest.raises(ValueError, match="issuer"):
        owner_key("https://evil.example/#x", "y")  # would make "https://evil.example/#x#y" ambiguous


def test_the_same_subject_at_another_issuer_is_another_user(
    monkeypatch: pytest.MonkeyPatch, store: SessionStore
) -> None:
    alice = auth.actor_of({"sub": "sub-1", "iss": ISSUER_A, "email": "alice@example.com"})
    mallory = auth.actor_of({"sub": "sub-1", "iss": ISSUER_B, "email": "mallory@example.com"})
    mine = store.acting_as(alice).sessions.create(title="Alice's plan")
    run(store.acting_as(alice), mine.id, arithmetic_agent(), "What is 6*7?")
    with pytest.raises(SessionNotFound):
        store.acting_as(mallory).sessions.get(mine.id)
    assert store.acting_as(mallory).sessions.list() == []
    claims = {"sub": "sub-1", "iss": ISSUER_B, "email": "mallory@example.com", "provider": "microsoft"}
    assert "Alice's plan" not in page_text(app(monkeypatch, claims, "pages/sessions.py"))
    same = {**claims, "iss": ISSUER_A, "provider": "default"}
    assert "Alice's plan" in page_text(app(monkeypatch, same, "pages/sessions.py"))


def test_data_from_before_issuers_is_adopted_by_its_user_of_the_auth_provider_only(
    monkeypatch: pytest.MonkeyPatch, store: SessionStore
) -> None:
    legacy = store.acting_as(Actor.user("sub-alice"))  # how sign-in recorded owners before 0007: the bare subject
    old = legacy.sessions.create(title="From before")
    run(legacy, old.id, arithmetic_agent(), "What is 6*7?")
    MemoryStore(store.engine, actor=Actor.user("sub-alice")).add("Alice team uses Postgres", scope="user")
    other = {"sub": "sub-alice", "iss": ISSUER_B, "provider": "google", "is_logged_in": True}
    assert "From before" not in page_text(app(monkeypatch, other, "pages/sessions.py"))
    assert store.sessions.get(old.id).owner == "sub-alice"  # a named provider adopts nothing
    alice = {"sub": "sub-alice", "iss": ISSUER_A, "provider": "default", "is_logged_in": True}
    assert "From before" in page_text(app(monkeypatch, alice, "pages/sessions.py"))
    assert store.sessions.get(old.id).owner == f"{ISSUER_A}#sub-alice"
    memories = MemoryStore(store.engine, actor=auth.actor_of(alice))
    assert [m.text for m in memories.list(scope="user")] == ["Alice team uses Postgres"]
    with pytest.raises(PermissionError):
        store.acting_as(auth.actor_of(other)).sessions.adopt_owner("sub-bob")


def test_each_named_provider_gets_its_own_sign_in_button(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[tuple[Any, ...]] = []
    monkeypatch.setattr(streamlit, "login", lambda *args: asked.append(args))
    secrets = {
        "redirect_uri": AUTH["redirect_uri"],
        "cookie_secret": AUTH["cookie_secret"],
        "google": {k: v for k, v in AUTH.items() if k in ("client_id", "client_secret", "server_metadata_url")},
        "microsoft": {k: v for k, v in AUTH.items() if k in ("client_id", "client_secret", "server_metadata_url")},
    }
    at = app(monkeypatch, None, auth_secrets=secrets)
    assert [b.label for b in at.button] == ["Sign in with Google", "Sign in with Microsoft"]
    at.button(key="sign_in_microsoft").click().run()
    assert asked == [("microsoft",)]
    both = app(monkeypatch, None, auth_secrets={**AUTH, "google": secrets["google"]})
    assert [b.label for b in both.button] == ["Sign in", "Sign in with Google"]
    both.button(key="sign_in").click().run()
    assert asked[-1] == ()


def test_an_owner_key_of_a_long_subject_and_its_issuer_is_kept_whole(file_db_url: str) -> None:
    store = SessionStore.open(file_db_url)
    alice = store.acting_as(auth.actor_of({"sub": "s" * 255, "iss": ISSUER_A}))
    bob = store.acting_as(Actor.user("sub-bob"))
    long_owned, short_owned = alice.sessions.create(), bob.sessions.create()
    events = run(bob, short_owned.id, arithmetic_agent(), "What is 6*7?")
    store.close()
    reopened = SessionStore.open(file_db_url)
    with reopened.engine.connect() as conn:
        assert {c["name"]: c["type"] for c in inspect(conn).get_columns("sessions")}["owner"].length == 520
    assert reopened.sessions.get(long_owned.id).owner == f"{ISSUER_A}#{'s' * 255}"
    assert reopened.acting_as(Actor.user("sub-bob")).log.events(short_owned.id) == persisted(events)
    assert reopened.sessions.get(short_owned.id).owner == "sub-bob"
    reopened.close()
