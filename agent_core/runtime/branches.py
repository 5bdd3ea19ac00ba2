"""A session's branches: the original and its forks (forks of forks too), each with its status and answer.

Forks point at their parent (``SessionInfo.parent_id``): the tree is read from there, so the original
session is never written to when a fork is made. A fork made at a step carries its ``RunForked`` event.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass

from agent_core.events import RunForked
from agent_core.store import SessionInfo, SessionNotFound, SessionStore
from agent_core.views.transcript import Transcript


@dataclass(frozen=True)
class Branch:
    """One session in a tree of branches."""

    session: SessionInfo
    run_id: str | None
    """The session's last run (the branch's own run, for a fork)."""
    status: str | None
    """How that run ended; None while it runs or when the session has no run."""
    answer: str | None
    forked: RunForked | None
    """Where the branch was forked from at a step (None for the original and for whole-turn reruns)."""
    children: tuple[Branch, ...] = ()

    def walk(self, depth: int = 0) -> Iterator[tuple[int, Branch]]:
        """Every branch of the tree with its depth, the original first, children in the order they were made."""
        yield depth, self
        for child in self.children:
            yield from child.walk(depth + 1)


def root_of(store: SessionStore, session_id: str) -> SessionInfo:
    """The session the branches of ``session_id`` all come from (itself if it is no fork)."""
    session = store.sessions.get(session_id)
    seen = {session.id}
    while session.parent_id and session.parent_id not in seen:
        try:
            session = store.sessions.get(session.parent_id)
        except SessionNotFound:  # a parent the actor may not see ends the climb
            break
        seen.add(session.id)
    return session


def branch_tree(store: SessionStore, session_id: str) -> Branch:
    """The tree of branches that ``session_id`` belongs to, from its original down."""
    root = root_of(store, session_id)
    children: dict[str, list[SessionInfo]] = defaultdict(list)
    for info in store.sessions.list():
        if info.parent_id:
            children[info.parent_id].append(info)
    return _branch(store, root, children, {root.id})


def _branch(store: SessionStore, info: SessionInfo, children: dict[str, list[SessionInfo]], seen: set[str]) -> Branch:
    turn = Transcript.from_events(store.log.events(info.id)).run()
    kids = sorted((c for c in children.get(info.id, ()) if c.id not in seen), key=lambda c: c.created_at)
    seen.update(c.id for c in kids)
    return Branch(
        info,
        turn.run_id if turn else None,
        turn.status if turn else None,
        turn.answer if turn else None,
        turn.forked if turn else None,
        tuple(_branch(store, child, children, seen) for child in kids),
    )
