"""Read-only share links: unguessable tokens stored hashed, one session (or snapshot) shown, revocable, expiring."""

from __future__ import annotations

import hashlib

import pytest
from sqlalchemy import text

from agent_core.store import (
    Actor,
    NotYours,
    ReadOnly,
    SessionStore,
    ShareLinkInvalid,
    SnapshotNotFound,
)
from tests.store.helpers import arithmetic_agent, run

ALICE = Actor.user("sub-alice", "alice@example.com")
BOB = Actor.user("sub-bob", "bob@example.com")


def test_a_link_opens_one_session_read_only_until_revoked(store: SessionStore) -> None:
    alice = store.acting_as(ALICE)
    shared, private = alice.sessions.create(title="Demo"), alice.sessions.create(title="Private")
    events = run(alice, shared.id, arithmetic_agent(), "What is 6*7?")
    token, link = alice.shares.create(shared.id, allow_anonymous=True)
    grant = store.shares.open(token)
    assert (grant.session_id, grant.upto_seq, grant.allow_anonymous) == (shared.id, None, True)
    viewer = store.acting_as(grant.actor())
    assert [s.title for s in viewer.sessions.list()] == ["Demo"]
    assert viewer.log.events(shared.id) == alice.log.events(shared.id) and events
    with pytest.raises(NotYours):
        viewer.sessions.get(private.id)
    with pytest.raises(ReadOnly):
        viewer.sessions.rename(shared.id, "mine")
    with pytest.raises(ReadOnly):
        viewer.shares.create(shared.id)
    assert [(li.id, li.active) for li in alice.shares.list(shared.id)] == [(link.id, True)]
    alice.shares.revoke(link.id)
    with pytest.raises(ShareLinkInvalid, match="not valid"):
        store.shares.open(token)
    assert [li.active for li in alice.shares.list(shared.id)] == [False]


def test_a_snapshot_link_shows_the_session_up_to_the_snapshot(store: SessionStore) -> None:
    alice = store.acting_as(ALICE)
    session = alice.sessions.create()
    first = run(alice, session.id, arithmetic_agent(), "What is 6*7?")
    snapshot = alice.snapshots.save(session.id, "after one question")
    run(alice, session.id, arithmetic_agent(), "And 2*3?")
    token, _ = alice.shares.create(session.id, snapshot_id=snapshot.id)
    viewer = store.acting_as(store.shares.open(token).actor())
    assert [e.run_id for e in viewer.log.events(session.id)] == [
        e.run_id for e in alice.log.events(session.id, upto_seq=snapshot.upto_seq)
    ]
    assert {e.run_id for e in viewer.log.events(session.id)} == {first[0].run_id}
    assert store.shares.open(token).allow_anonymous is False


def test_tokens_are_unguessable_and_only_their_hash_is_stored(store: SessionStore) -> None:
    alice = store.acting_as(ALICE)
    session = alice.sessions.create()
    tokens = [alice.shares.create(session.id)[0] for _ in range(3)]
    assert len(set(tokens)) == 3 and all(len(t) >= 43 for t in tokens)
    with store.engine.connect() as conn:
        stored = [tuple(r) for r in conn.execute(text("SELECT * FROM share_links"))]
    assert not any(token in str(stored) for token in tokens)
    with store.engine.connect() as conn:
        hashes = set(conn.execute(text("SELECT token_hash FROM share_links")).scalars())
    assert hashes == {hashlib.sha256(t.encode()).hexdigest() for t in tokens}
    for bad in ("", "short", tokens[0][:-1] + ("A" if tokens[0][-1] != "A" else "B"), "x" * 500, "../../etc", "é" * 30):
        with pytest.raises(ShareLinkInvalid):
            store.shares.open(bad)


def test_links_expire_and_only_the_owner_makes_or_revokes_them(store: SessionStore) -> None:
    alice, bob = store.acting_as(ALICE), store.acting_as(BOB)
    session = alice.sessions.create()
    token, link = alice.shares.create(session.id, expires_in_days=1)
    assert store.shares.open(token).session_id == session.id
    with store.engine.begin() as conn:  # a day later
        conn.execute(text("UPDATE share_links SET expires_at = expires_at - 86401"))
    with pytest.raises(ShareLinkInvalid):
        store.shares.open(token)
    with pytest.raises(ValueError, match="expires after"):
        alice.shares.create(session.id, expires_in_days=0)
    with pytest.raises(NotYours):
        bob.shares.create(session.id)
    with pytest.raises(NotYours):
        bob.shares.revoke(link.id)
    with pytest.raises(NotYours):
        bob.shares.list(session.id)
    other = bob.sessions.create()
    snapshot = alice.snapshots.save(session.id)
    with pytest.raises(SnapshotNotFound):
        bob.shares.create(other.id, snapshot_id=snapshot.id)
    alice.sessions.delete(session.id)  # its links go with it
    with store.engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM share_links")).scalar() == 0
