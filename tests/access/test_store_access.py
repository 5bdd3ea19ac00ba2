"""Ownership in the store: each user sees and changes only their own; admins see all; refusals reveal nothing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from agent_core.longterm import MemoryStore
from agent_core.longterm.memory_store import MemoryNotFound
from agent_core.longterm.memory_tools import bind_memory_tools, make_memory_tools
from agent_core.runtime.session_runs import run_in_session
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
    mine = alice.create_session(title="Alice's plan")
    run(alice, mine.id, arithmetic_agent(), "What is 6*7?")
    snapshot = alice.save_snapshot(mine.id, "v1")
    theirs = bob.create_session(title="Bob's notes")
    assert [s.title for s in alice.list_sessions()] == ["Alice's plan"]
    assert [(s.title, s.owner) for s in bob.list_sessions()] == [("Bob's notes", "sub-bob")]
    assert {s.id for s in store.acting_as(ADMIN).list_sessions()} == {mine.id, theirs.id}
    assert {s.id for s in store.list_sessions()} == {mine.id, theirs.id}  # the local admin (no sign-in)

    # Bob gets, for every way in, exactly the answer a session that does not exist gets.
    missing = "ses_0000000000000000"
    calls: list[Callable[[str], Any]] = [
        bob.get_session,
        bob.events,
        bob.stored_events,
        bob.list_snapshots,
        bob.interrupted_run,
        bob.run_starters,
        lambda sid: export_session(bob, sid),
        lambda sid: bob.rename_session(sid, "mine now"),
        bob.delete_session,
        bob.save_snapshot,
        lambda sid: bob.append(sid, []),
        lambda sid: bob.create_share_link(sid),
        lambda sid: list(run_in_session(bob, sid, arithmetic_agent(), "What is 1+1?")),
    ]
    for call in calls:
        assert refusal(lambda c=call: c(mine.id)) == refusal(lambda c=call: c(missing)).replace(missing, mine.id)
    with pytest.raises(NotYours):
        bob.get_session(mine.id)
    for call in (bob.get_snapshot, bob.snapshot_events, bob.fork_snapshot, bob.delete_snapshot):
        assert refusal(lambda c=call: c(snapshot.id)) == f"no snapshot {snapshot.id!r}"
    assert alice.get_session(mine.id).title == "Alice's plan" and len(alice.events(mine.id)) > 3
    assert [s.name for s in alice.list_snapshots(mine.id)] == ["v1"]


def test_what_a_user_makes_is_theirs_forks_and_imports_included(store: SessionStore) -> None:
    alice, bob = store.acting_as(ALICE), store.acting_as(BOB)
    session = alice.create_session()
    run(alice, session.id, arithmetic_agent(), "What is 6*7?")
    fork = alice.fork_snapshot(alice.save_snapshot(session.id).id)
    imported = import_session(bob, export_session(alice, session.id))
    assert (fork.owner, imported.owner) == ("sub-alice", "sub-bob")
    assert alice.list_snapshots(session.id)[0].owner == "sub-alice"
    assert [s.id for s in bob.list_sessions()] == [imported.id]
    assert bob.events(imported.id) == alice.events(session.id)
    with pytest.raises(NotYours):
        alice.get_session(imported.id)


def test_runs_record_who_started_them(store: SessionStore) -> None:
    alice, admin = store.acting_as(ALICE), store.acting_as(ADMIN)
    session = alice.create_session()
    first = run(alice, session.id, arithmetic_agent(), "What is 6*7?")
    second = run(admin, session.id, arithmetic_agent(), "And 2*3?")  # an admin may continue anyone's session
    local = store.create_session()
    third = run(store, local.id, arithmetic_agent(), "What is 1+1?")
    assert alice.run_starters(session.id) == {
        first[0].run_id: "alice@example.com",
        second[0].run_id: "admin@example.com",
    }
    assert store.run_starters(local.id) == {third[0].run_id: "local"}


def test_data_without_an_owner_is_for_admins_who_may_claim_it(store: SessionStore) -> None:
    old = store.create_session(title="made before sign-in")  # the local admin records no owner
    alice, admin = store.acting_as(ALICE), store.acting_as(ADMIN)
    assert old.owner is None and alice.list_sessions() == []
    assert [s.id for s in admin.list_sessions(unowned=True)] == [old.id]
    with pytest.raises(NotYours):
        alice.claim_session(old.id)
    assert admin.claim_session(old.id).owner == "sub-admin"
    assert admin.list_sessions(unowned=True) == []
    with pytest.raises(ValueError, match="already has an owner"):
        admin.claim_session(old.id)


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
    session = store.acting_as(ALICE).create_session()
    viewer = store.acting_as(Actor.viewer(session.id))
    for call in (
        lambda: viewer.create_session(),
        lambda: viewer.rename_session(session.id, "x"),
        lambda: viewer.delete_session(session.id),
        lambda: viewer.save_snapshot(session.id),
        lambda: viewer.append(session.id, []),
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
