"""Every public method of the stores, found by introspection, called as a non-owner and as a share-link viewer.

A new store method fails ``test_every_public_method_has_a_probe`` until it gets a row in ``PROBES`` (or
``MEMORY_PROBES``) saying how it is called and what each kind of visitor must get:

- ``refused``: a refusal (the not-found errors, ``ReadOnly``/``PermissionError``, an invalid share link);
- ``clean``: an answer that holds nothing of Alice's (her marker text and ids appear nowhere in it).

The viewer holds an anonymous share link to Alice's session ``shared``; every probe runs against Alice's other,
private session (``viewer``) and against the shared one (``viewer_shared``: reading it is allowed, changing it is
not). Afterwards Alice's data must be exactly as before.
"""

from __future__ import annotations

import ast
import inspect
from collections.abc import Callable, Iterator
from dataclasses import dataclass, is_dataclass
from pathlib import Path
from typing import Any, Literal

import pytest

from agent_core.events import RunStarted
from agent_core.guards.limits import CancelToken
from agent_core.longterm import MemoryStore
from agent_core.longterm.memory import MemoryNotFound
from agent_core.runtime.sessions import NothingToResume
from agent_core.store import Actor, SessionNotFound, SessionStore, ShareLinkInvalid, SnapshotNotFound
from agent_core.store.access import ReadOnly
from agent_core.store.runs import RunOwner, RunOwners
from agent_core.store.tables import SessionConfig
from tests.store.helpers import arithmetic_agent, run

MARK = "ALICE-PRIVATE-7c1f"
ALICE = Actor.user("https://id.example.com#sub-alice", "alice@example.com")
BOB = Actor.user("https://id.example.com#sub-bob", "bob@example.com")
ALICE_IDS = (ALICE.subject or "", "sub-alice", ALICE.email or "")
"""Who Alice is: her owner key, her subject, her email. No visitor's answer names her, not even her shared session's."""
REFUSALS = (SessionNotFound, SnapshotNotFound, ShareLinkInvalid, PermissionError, MemoryNotFound, NothingToResume)
Expect = Literal["refused", "clean"]
STRANGER_RUN = RunStarted(run_id="run_x", question=MARK, model="m", protocol="react")


@dataclass
class World:
    """Alice's data, and the ids a probe aims at."""

    url: str
    target: str
    """The session a probe aims at (Alice's private one, or the shared one)."""
    snapshot: str
    link_id: str
    run_id: str
    memory_id: int
    token: str
    shared: str
    """Alice's session the viewer's link opens (nothing private in it)."""


@dataclass(frozen=True)
class Probe:
    """How to call one method, and what Bob, a viewer of another session and a viewer of this one must get."""

    call: Callable[[Any, World], Any]
    bob: Expect = "refused"
    viewer: Expect = "refused"
    viewer_shared: Expect = "refused"


def _dump(s: SessionStore, w: World) -> Any:
    """A session file's content that Bob was handed (of the shared session: nothing private in it)."""
    return SessionStore.open(w.url).acting_as(ALICE).dumps.read(w.shared)


def _forged(w: World) -> RunOwner:
    """A claim on Alice's run that no ``runs.claim`` gave."""
    return RunOwner(w.target, w.run_id, "forged", 0.0, False)


PROBES: dict[str, Probe] = {
    "acting_as": Probe(lambda s, w: s.acting_as(s.actor).sessions.list(), "clean", "clean", "clean"),
    "close": Probe(lambda s, w: SessionStore.open(w.url).acting_as(s.actor).close(), "clean", "clean", "clean"),
    "dumps.add": Probe(lambda s, w: s.dumps.add(_dump(s, w)), "clean"),  # Bob's own copy of what he was given
    "dumps.read": Probe(lambda s, w: s.dumps.read(w.target)),
    "log.append": Probe(lambda s, w: s.log.append(w.target, [STRANGER_RUN])),
    "log.events": Probe(lambda s, w: s.log.events(w.target), viewer_shared="clean"),
    "log.run_starters": Probe(lambda s, w: s.log.run_starters(w.target), viewer_shared="clean"),
    "log.stored_events": Probe(lambda s, w: s.log.stored_events(w.target), viewer_shared="clean"),
    "open": Probe(lambda s, w: SessionStore.open(w.url).acting_as(s.actor).sessions.list(), "clean", "clean", "clean"),
    "runs.claim": Probe(lambda s, w: s.runs.claim(w.target, "run_claimed")),
    "runs.events_after": Probe(lambda s, w: s.runs.events_after(w.target, 0), viewer_shared="clean"),
    "runs.interrupted": Probe(lambda s, w: s.runs.interrupted(w.target), viewer_shared="clean"),
    "runs.live_owner": Probe(lambda s, w: s.runs.live_owner(w.target), viewer_shared="clean"),
    "runs.open": Probe(lambda s, w: s.runs.open("run_opened", SessionConfig(), title="mine"), "clean"),
    "runs.owned": Probe(
        lambda s, w: s.runs.owned(RunOwner(w.target, w.run_id, "forged", 0.0, False), CancelToken(), iter(()))
    ),
    "runs.release": Probe(lambda s, w: s.runs.release(RunOwner(w.target, w.run_id, "forged", 0.0, False))),
    "runs.request_cancel": Probe(lambda s, w: s.runs.request_cancel(w.target, w.run_id)),
    "sessions.adopt_owner": Probe(lambda s, w: s.sessions.adopt_owner(ALICE.owner.split("#")[1])),
    "sessions.claim": Probe(lambda s, w: s.sessions.claim(w.target)),
    "sessions.create": Probe(lambda s, w: s.sessions.create(title="mine"), "clean"),
    "sessions.delete": Probe(lambda s, w: s.sessions.delete(w.target)),
    "sessions.get": Probe(lambda s, w: s.sessions.get(w.target), viewer_shared="clean"),
    "sessions.list": Probe(lambda s, w: s.sessions.list(), "clean", "clean", "clean"),
    "sessions.rename": Probe(lambda s, w: s.sessions.rename(w.target, "taken")),
    "sessions.update_config": Probe(lambda s, w: s.sessions.update_config(w.target, s.sessions.get(w.target).config)),
    "shares.create": Probe(lambda s, w: s.shares.create(w.target, allow_anonymous=True)),
    "shares.list": Probe(lambda s, w: s.shares.list(w.target)),
    "shares.open": Probe(lambda s, w: s.shares.open("x" * 43), "refused", "refused", "refused"),
    "shares.revoke": Probe(lambda s, w: s.shares.revoke(w.link_id)),
    "snapshots.delete": Probe(lambda s, w: s.snapshots.delete(w.snapshot)),
    "snapshots.events": Probe(lambda s, w: s.snapshots.events(w.snapshot), viewer_shared="clean"),
    "snapshots.fork": Probe(lambda s, w: s.snapshots.fork(w.snapshot)),
    "snapshots.get": Probe(lambda s, w: s.snapshots.get(w.snapshot), viewer_shared="clean"),
    "snapshots.list": Probe(lambda s, w: s.snapshots.list(w.target), viewer_shared="clean"),
    "snapshots.save": Probe(lambda s, w: s.snapshots.save(w.target, "taken")),
}
"""One probe per public SessionStore method, a part's as ``part.method`` (the walk refuses to run with one missing)."""

MEMORY_PROBES: dict[str, Probe] = {
    "add": Probe(lambda m, w: m.add("Bob likes tea", scope="user"), "clean"),
    "claim_unowned": Probe(lambda m, w: m.claim_unowned()),
    "clear": Probe(lambda m, w: m.clear("user"), "clean"),  # Bob's own memories only
    "close": Probe(lambda m, w: MemoryStore.open(w.url).close(), "clean"),
    "count": Probe(lambda m, w: m.count("user"), "clean"),
    "delete": Probe(lambda m, w: m.delete(w.memory_id)),
    "get": Probe(lambda m, w: m.get(w.memory_id)),
    "list": Probe(lambda m, w: m.list("user"), "clean"),
    "open": Probe(lambda m, w: MemoryStore.open(w.url).close(), "clean"),
    "scopes": Probe(lambda m, w: m.scopes(), "clean"),
    "search": Probe(lambda m, w: m.search(MARK, scope="user"), "clean"),
    "unowned_count": Probe(lambda m, w: m.unowned_count(), "clean"),
}
"""One probe per public MemoryStore method; a share-link viewer cannot even open a MemoryStore."""


def public_methods(cls: type) -> set[str]:
    """The public callables of a class, inherited ones included."""
    return {name for name, _ in inspect.getmembers(cls, callable) if not name.startswith("_")}


def store_methods(store: SessionStore) -> set[str]:
    """The store's own public callables and each part's as ``part.method`` (so a new part's methods are found too)."""
    parts = {name: part for name, part in vars(store).items() if is_dataclass(part) and name != "access"}
    inner = {f"{name}.{method}" for name, part in parts.items() for method in public_methods(type(part))}
    return public_methods(SessionStore) | inner


def test_every_public_method_has_a_probe() -> None:
    store = SessionStore.open("sqlite://")
    try:
        assert sorted(store_methods(store) - set(PROBES)) == [], "give each new store method a probe"
        assert sorted(set(PROBES) - store_methods(store)) == []
    finally:
        store.close()
    assert sorted(public_methods(MemoryStore) ^ set(MEMORY_PROBES)) == []


@pytest.fixture
def world(file_db_url: str) -> Iterator[tuple[SessionStore, World, str]]:
    store = SessionStore.open(file_db_url)
    alice = store.acting_as(ALICE)
    private = alice.sessions.create(title=f"Plan {MARK}")
    run(alice, private.id, arithmetic_agent(), f"What is 6*7? {MARK}")
    shared = alice.sessions.create(title="Shared demo")
    run(alice, shared.id, arithmetic_agent(), "What is 2*3?")
    token, _ = alice.shares.create(shared.id, allow_anonymous=True)
    memory = MemoryStore(store.engine, actor=ALICE).add(f"Alice's door code is {MARK}", scope="user")
    made = World(file_db_url, private.id, "", "", "run_live", memory.id, token, shared.id)
    yield store, made, shared.id
    store.close()


def alice_state(store: SessionStore, w: World, shared: str) -> Any:
    alice = store.acting_as(ALICE)
    sessions = {s.id: (s.title, s.owner, len(alice.log.events(s.id))) for s in alice.sessions.list()}
    links = {sid: [(k.id, k.active) for k in alice.shares.list(sid)] for sid in sessions}
    snapshots = {sid: [x.name for x in alice.snapshots.list(sid)] for sid in sessions}
    owner = RunOwners(store.engine).get(w.target)
    memories = [m.text for m in MemoryStore(store.engine, actor=ALICE).list("user")]
    return sessions, links, snapshots, owner and owner.run_id, memories


def outcome(call: Callable[[], Any]) -> tuple[Expect, Any]:
    try:
        return "clean", call()
    except REFUSALS as exc:
        return "refused", exc


def walk(probes: dict[str, Probe], store: Any, w: World, role: str) -> list[str]:
    """Each probe's outcome against its expectation for ``role``; the list of mismatches and leaks."""
    wrong = []
    for name, probe in sorted(probes.items()):
        got, value = outcome(lambda p=probe: p.call(store, w))
        expected = getattr(probe, role)
        if got != expected:
            wrong.append(f"{name}: {got} ({value!r:.120}), expected {expected}")
        elif got == "clean" and (MARK in repr(value) or (role != "viewer_shared" and w.target in repr(value))):
            wrong.append(f"{name}: answered with Alice's data: {value!r:.200}")
        elif got == "clean" and (found := [i for i in ALICE_IDS if i in repr(value)]):
            wrong.append(f"{name}: named Alice ({found}): {value!r:.200}")
    return wrong


def aim(store: SessionStore, w: World, session_id: str) -> World:
    """The world aimed at ``session_id``: a snapshot of it, a share link of it, a live run in it."""
    alice = store.acting_as(ALICE)
    snapshot = alice.snapshots.save(session_id, f"snap-{len(alice.snapshots.list(session_id))}")
    _, link = alice.shares.create(session_id)
    alice.runs.claim(session_id, "run_live")  # a run in progress there (owned by this process)
    return World(w.url, session_id, snapshot.id, link.id, "run_live", w.memory_id, w.token, w.shared)


def test_a_non_owner_gets_nothing_of_alices_through_any_method(world: tuple[SessionStore, World, str]) -> None:
    store, w, shared = world
    w = aim(store, w, w.target)
    before = alice_state(store, w, shared)
    bob = store.acting_as(BOB)
    assert walk(PROBES, bob, w, "bob") == []
    assert walk(MEMORY_PROBES, MemoryStore(store.engine, actor=BOB), w, "bob") == []
    assert alice_state(store, w, shared) == before


@pytest.mark.parametrize("aimed_at", ["viewer", "viewer_shared"])
def test_a_share_link_viewer_reads_its_session_and_changes_nothing(
    world: tuple[SessionStore, World, str], aimed_at: str
) -> None:
    store, w, shared = world
    w = aim(store, w, shared if aimed_at == "viewer_shared" else w.target)
    before = alice_state(store, w, shared)
    viewer = store.acting_as(store.shares.open(w.token).actor())
    assert walk(PROBES, viewer, w, aimed_at) == []
    with pytest.raises(ReadOnly):
        MemoryStore(store.engine, actor=viewer.actor)
    assert alice_state(store, w, shared) == before


def test_no_run_is_claimed_or_followed_around_the_acting_user(
    world: tuple[SessionStore, World, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Starting, resuming and following a run go through the store's checks before run_owners is touched."""
    from agent_core.runtime.sessions import FollowedRun, resume_run, run_in_session

    store, w, shared = world
    claims: list[str] = []
    real_claim = RunOwners.claim
    monkeypatch.setattr(RunOwners, "claim", lambda self, sid, rid: claims.append(sid) or real_claim(self, sid, rid))
    viewer = store.acting_as(store.shares.open(w.token).actor())
    for who, session_id in ((viewer, shared), (store.acting_as(BOB), w.target), (store.acting_as(BOB), shared)):
        with pytest.raises(REFUSALS):
            list(run_in_session(who, session_id, arithmetic_agent(), "What is 1+1?"))
        with pytest.raises(REFUSALS):
            list(resume_run(who, session_id, arithmetic_agent()))
    assert claims == []
    owner = store.acting_as(ALICE).runs.claim(w.target, "run_live")
    with pytest.raises(SessionNotFound):
        FollowedRun(store.acting_as(BOB), w.target, owner)
    followed = FollowedRun(store.acting_as(ALICE), w.target, owner)
    followed.cancel()
    assert RunOwners(store.engine).get(w.target).cancel_requested  # type: ignore[union-attr]


def test_nothing_above_the_store_reaches_run_owners_around_the_acting_user() -> None:
    """Outside ``agent_core/store`` nobody holds a RunOwners: a claim that ``store.runs.claim`` (``runs.open``) checked
    is heartbeaten and released through ``store.runs.owned`` / ``release`` (a fork's branch is recorded through
    ``recorded_run``); nobody tails the event table directly."""
    root = Path(__file__).resolve().parents[2]
    found = []
    for path in [*root.joinpath("agent_core").rglob("*.py"), *root.joinpath("sparrow_ui").rglob("*.py")]:
        if "store" in path.relative_to(root).parts[1:2]:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and ast.unparse(node.func) in ("RunOwners", "events_after"):
                found.append(f"{path.relative_to(root)}:{ast.unparse(node.func)}")
    assert found == []
