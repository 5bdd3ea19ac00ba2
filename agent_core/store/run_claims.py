"""A session's runs through the acting user (``store.runs``): the interrupted one; claiming, following, stopping.

``run_owners`` holds which process runs what; this is the one way in for everything above the store (the
sessions module, live runs followed from another replica, the pages), so each call is checked against the
actor like any other store call: seeing a run in progress or its new events needs read access to the session
(a share link's viewer sees up to its snapshot), claiming or stopping one needs write access.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from sqlalchemy import Connection, insert

from agent_core.events import Event
from agent_core.guards.limits import CancelToken
from agent_core.store.records import InterruptedRun, SessionConfig
from agent_core.store.run_owners import RunOwner, RunOwners, events_after, owned
from agent_core.store.run_queries import interrupted_run
from agent_core.store.tables import SessionRow, table_of
from agent_core.store.transactions import StoreAccess

_INSERT_SESSION = insert(table_of(SessionRow))


@dataclass(frozen=True)
class Runs:
    """A session's runs for the acting user: the interrupted one, ownership of the one in progress, its new events."""

    access: StoreAccess

    def interrupted(self, session_id: str) -> InterruptedRun | None:
        """The session's last run if it has no ``run_finished`` event (it can be resumed), else None."""
        return interrupted_run(self.access, session_id)

    def live_owner(self, session_id: str) -> RunOwner | None:
        """The session's run in progress if its owner process is alive (None: no run, or a dead one)."""
        with self.access.read() as db:
            self.access.session(db, session_id)
        return RunOwners(self.access.engine).live(session_id)

    def claim(self, session_id: str, run_id: str) -> RunOwner:
        """Make this process the owner of ``run_id`` in the actor's session; SessionBusy if a live run holds it."""
        with self.access.read() as db:
            self.access.session(db, session_id, write=True)
        return RunOwners(self.access.engine).claim(session_id, run_id)

    def open(
        self,
        run_id: str,
        config: SessionConfig,
        *,
        title: str | None = None,
        also: Callable[[Connection, str], None] | None = None,
    ) -> RunOwner:
        """A new session of the actor's with ``config``, its run ``run_id`` claimed by this process (the claim names
        the session): one transaction where ``sessions.create``, ``runs.claim`` and ``sessions.update_config`` take
        three (a new session has no run to wait for). ``also(conn, session_id)`` adds rows that belong with it (an
        experiment's result row) to the same transaction."""
        self.access.actor.check_writable()
        values = self.access.new_session_values(config, title)
        with self.access.writer.begin() as conn:
            conn.execute(_INSERT_SESSION, values)
            claim = RunOwners(self.access.engine).claim_new(conn, values["id"], run_id)
            if also is not None:
                also(conn, values["id"])
        return claim

    def owned(self, claim: RunOwner, cancel: CancelToken, events: Iterator[Event]) -> Iterator[Event]:
        """``events`` while this process owns ``claim`` (one ``claim`` or ``open`` gave): heartbeating it, a cancel
        request honoured, the claim released at the end."""
        return owned(RunOwners(self.access.engine), claim, cancel, events)

    def release(self, claim: RunOwner) -> None:
        """Give ``claim`` up without running it (what was to start with it failed)."""
        RunOwners(self.access.engine).release(claim)

    def request_cancel(self, session_id: str, run_id: str) -> bool:
        """Ask the run's owner, wherever it is, to stop it; False if that run is no longer in progress."""
        with self.access.read() as db:
            self.access.session(db, session_id, write=True)
        return RunOwners(self.access.engine).request_cancel(session_id, run_id)

    def events_after(self, session_id: str, after_seq: int) -> list[tuple[int, Event]]:
        """The session's events numbered after ``after_seq``, with their numbers (to follow a run owned elsewhere)."""
        with self.access.read() as db:
            self.access.session(db, session_id)
        found = events_after(self.access.engine, session_id, after_seq)
        upto = self.access.actor.shared_upto
        return found if upto is None else [(seq, event) for seq, event in found if seq <= upto]
