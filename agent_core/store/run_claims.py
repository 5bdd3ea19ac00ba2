"""Runs in progress through the acting user: claiming, following, tailing and stopping a session's run.

``run_owners`` holds which process runs what; this is the one way in for everything above the store (the
sessions module, live runs followed from another replica, the pages), so each call is checked against the
actor like any other store call: seeing a run in progress or its new events needs read access to the session
(a share link's viewer sees up to its snapshot), claiming or stopping one needs write access.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import Connection, insert

from agent_core.events import Event
from agent_core.store.records import SessionConfig
from agent_core.store.run_owners import RunOwner, RunOwners, events_after
from agent_core.store.tables import SessionRow, table_of
from agent_core.store.transactions import StoreBase

_INSERT_SESSION = insert(table_of(SessionRow))


class RunControl(StoreBase):
    """Run ownership and event tailing, for the acting user."""

    def live_run_owner(self, session_id: str) -> RunOwner | None:
        """The session's run in progress if its owner process is alive (None: no run, or a dead one)."""
        with self._read() as db:
            self._session(db, session_id)
        return RunOwners(self.engine).live(session_id)

    def claim_run(self, session_id: str, run_id: str) -> RunOwner:
        """Make this process the owner of ``run_id`` in the actor's session; SessionBusy if a live run holds it."""
        with self._read() as db:
            self._session(db, session_id, write=True)
        return RunOwners(self.engine).claim(session_id, run_id)

    def open_run(
        self,
        run_id: str,
        config: SessionConfig,
        *,
        title: str | None = None,
        also: Callable[[Connection, str], None] | None = None,
    ) -> RunOwner:
        """A new session of the actor's with ``config``, its run ``run_id`` claimed by this process (the claim names
        the session): one transaction where ``create_session``, ``claim_run`` and ``update_config`` take three (a new
        session has no run to wait for). ``also(conn, session_id)`` adds rows that belong with it (an experiment's
        result row) to the same transaction."""
        self.actor.check_writable()
        values = self._new_session_values(config, title)
        with self._writer.begin() as conn:
            conn.execute(_INSERT_SESSION, values)
            claim = RunOwners(self.engine).claim_new(conn, values["id"], run_id)
            if also is not None:
                also(conn, values["id"])
        return claim

    def request_cancel(self, session_id: str, run_id: str) -> bool:
        """Ask the run's owner, wherever it is, to stop it; False if that run is no longer in progress."""
        with self._read() as db:
            self._session(db, session_id, write=True)
        return RunOwners(self.engine).request_cancel(session_id, run_id)

    def events_after(self, session_id: str, after_seq: int) -> list[tuple[int, Event]]:
        """The session's events numbered after ``after_seq``, with their numbers (to follow a run owned elsewhere)."""
        with self._read() as db:
            self._session(db, session_id)
        found = events_after(self.engine, session_id, after_seq)
        upto = self.actor.shared_upto
        return found if upto is None else [(seq, event) for seq, event in found if seq <= upto]
