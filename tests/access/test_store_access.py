"""Ownership in the store: each user sees and changes only their own; admins see all; refusals reveal nothing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from agent_core.longterm import MemoryStore
from agent_core.longterm.memory import MemoryNotFound
from agent_core.longterm.tools import bind_memory_tools, make_memory_tools
from agent_core.runtime.sessions import run_in_session
from agent_core.store import (
    Actor,
    NotYours,
    ReadOnly,
    SessionNotFound,
    SessionStore,
    SnapshotNotFound,
    export_session,
    import_session,
)
from tests.store.helpers import arithmetic_agent, run

ALICE = Actor.user("sub-alice", "alice@example.com")
BOB = Actor.user("sub-bob", "bob@example.com")
ADMIN = Actor.user("sub-admin", "admin@example.com", is_admin=True)


def refusal(call: Callable[[], Any]) -> str:
    """The message of the lookup error ``call`` raises (it must raise one)."""
    with pytest.raises((SessionNotFound, SnapshotNotFound)) as caught:
        call()
    return str(caught.value)


def test_each_user_lists_opens_and_changes_only_their_own_sessions(store: SessionStore) -> None:
    alice, bob = store.acting_as(ALICE), store.acting_as(BOB)
    mine = alice.sessions.create(title="Alice's plan")
    run(alice, mine.id, arithmetic_agent(), "What is 6*7?")
    snapshot = alice.snapshots.save(mine.id, "v1")
    theirs = bob.sessions.create(title="Bob's notes")
    assert [s.title for s in alice.sessions.list()] == ["Alice's plan"]
    assert [(s.title, s.owner) for s in bob.sessions.list()] == [("Bob's notes", "sub-bob")]
    assert {s.id for s in store.acting_as(ADMIN).sessions.list()} == {mine.id, theirs.id}
    assert {s.id for s in store.sessions.list()} == {mine.id, theirs.id}  # the local admin (no sign-in)

    # Bob gets, for every way in, exactly the answer a session that does not exist gets.
    missing = "ses_0000000000000000"
    calls: list[Callable[[str], Any]] = [
        bob.sessions.get,
        bob.log.events,
        bob.log.stored_events,
        bob.snapshots.list,
        bob.runs.interrupted,
        bob.log.run_starters,
        lambda sid: export_session(bob, sid),
        lambda sid: bob.sessions.rename(sid, "mine now"),
        bob.sessions.delete,
        bob.snapshots.save,
        lambda sid: bob.log.append(sid, []),
        lambda sid: bob.shares.create(sid),
        lambda sid: list(run_in_session(bob, sid, arithmetic_agent(), "What is 1+1?")),
    ]
    for call in calls:
        assert refusal(lambda c=call: c(mine.id)) == refusal(lambda c=call: c(missing)).replace(missing, mine.id)
    with pytest.raises(NotYours):
        bob.sessions.get(mine.id)
    for call in (bob.snapshots.get, bob.snapshots.events, bob.snapshots.fork, bob.snapshots.delete):
        assert refusal(lambda c=call: c(snapshot.id)) == f"no snapshot {snapshot.id!r}"
    assert alice.sessions.get(mine.id).title == "Alice's plan" and len(alice.log.events(mine.id)) > 3
    assert [s.name for s in alice.snapshots.list(mine.id)] == ["v1"]


def test_what_a_user_makes_is_theirs_forks_and_imports_included(store: SessionStore) -> None:
    alice, bob = store.acting_as(ALICE), store.acting_as(BOB)
    session = alice.sessions.create()
    run(alice, session.id, arithmetic_agent(), "What is 6*7?")
    fork = alice.snapshots.fork(alice.snapshots.save(session.id).id)
    imported = import_session(bob, export_session(alice, session.id))
    assert (fork.owner, imported.owner) == ("sub-alice", "sub-bob")
    assert alice.snapshots.list(session.id)[0].owner == "sub-alice"
    assert [s.id for s in bob.sessions.list()] == [imported.id]
    assert bob.log.events(imported.id) == alice.log.events(session.id)
    with pytest.raises(NotYours):
        alice.sessions.get(imported.id)


def test_runs_record_who_started_them(store: SessionStore) -> None:
    alice, admin = store.acting_as(ALICE), store.acting_as(ADMIN)
    session = alice.sessions.create()
    first = run(alice, session.id, arithmetic_agent(), "What is 6*7?")
    second = run(admin, session.id, arithmetic_agent(), "And 2*3?")  # an admin may continue anyone's session
    local = store.sessions.create()
    third = run(store, local.id, arithmetic_agent(), "What is 1+1?")
    assert alice.log.run_starters(session.id) == {
        first[0].run_id: "alice@example.com",
        second[0].run_id: "admin@example.com",
    }
    assert store.log.run_starters(local.id) == {third[0].run_id: "local"}


def test_data_without_an_owner_is_for_admins_who_may_claim_it(store: SessionStore) -> None:
    old = store.sessions.create(title="made before sign-in")  # the local admin records no owner
    alice, admin = store.acting_as(ALICE), store.acting_as(ADMIN)
    assert old.owner is None and alice.sessions.list() == []
    assert [s.id for s in admin.sessions.list(unowned=True)] == [old.id]
    with pytest.raises(NotYours):
        alice.sessions.claim(old.id)
    assert admin.sessions.claim(old.id).owner == "sub-admin"
    assert admin.sessions.list(unowned=True) == []
    with pytest.raises(ValueError, match="already has an owner"):
        admin.sessions.claim(old.id)


def test_memories_belong_to_their_owner(store: SessionStore) -> None:
    alice = MemoryStore(store.engine, actor=ALICE)
    bob = MemoryStore(store.engine, actor=BOB)
    local = MemoryStore(store.engine)
    kept = local.add("The team meets on Mondays")
    tea = alice.add("The user prefers green tea")
    assert not bob.add("The user prefers green tea").existing  # the same fact, saved by each of them
    bob.add("Bob's project is called Falcon")
    assert [m.text for m in alice.list()] == ["The user prefers green tea"]
    assert [m.text for m in alice.search("Falcon project")] == []
    assert [m.text for m in bob.search("Falcon project")] == ["Bob's project is called Falcon"]
    assert (alice.count(), bob.count(), local.count()) == (1, 2, 1)
    with pytest.raises(MemoryNotFound):
        bob.get(tea.id)
    with pytest.raises(MemoryNotFound):
        bob.delete(tea.id)
    assert bob.clear("default") == 2 and alice.count() == 1
    with pytest.raises(PermissionError):
        alice.claim_unowned()
    admin = MemoryStore(store.engine, actor=ADMIN)
    assert admin.unowned_count() == 1 and admin.claim_unowned() == 1
    assert [m.id for m in admin.list()] == [kept.id] and local.count() == 0


def test_a_read_only_viewer_cannot_write_anything(store: SessionStore) -> None:
    session = store.acting_as(ALICE).sessions.create()
    viewer = store.acting_as(Actor.viewer(session.id))
    for call in (
        lambda: viewer.sessions.create(),
        lambda: viewer.sessions.rename(session.id, "x"),
        lambda: viewer.sessions.delete(session.id),
        lambda: viewer.snapshots.save(session.id),
        lambda: viewer.log.append(session.id, []),
        lambda: export_session(viewer, session.id),
        lambda: MemoryStore(store.engine, actor=viewer.actor),
    ):
        with pytest.raises(ReadOnly):
            call()


def test_a_runs_memory_tools_reach_only_its_owners_memories(store: SessionStore) -> None:
    def tools_of(actor: Actor) -> dict[str, Any]:
        bound = bind_memory_tools(make_memory_tools(None), MemoryStore(store.engine, actor=actor), session_id=None)
        return {tool.name: tool for tool in bound}

    tools_of(ALICE)["remember"].invoke({"fact": "The user's project is called Falcon"})
    assert "Falcon" in tools_of(ALICE)["recall"].invoke({"query": "project Falcon"}).content
    assert tools_of(BOB)["recall"].invoke({"query": "project Falcon"}).content.startswith("No saved memories match")
    assert [m.text for m in MemoryStore(store.engine, actor=ALICE).list()] == ["The user's project is called Falcon"]
