"""Named, immutable snapshots of a session (``store.snapshots``), and forks: new sessions from a snapshot's events."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

from sqlmodel import col, delete, select

from agent_core.events import Event
from agent_core.store.event_log import EventLog, copy_events
from agent_core.store.records import SessionInfo, SnapshotInfo
from agent_core.store.tables import SessionRow, SnapshotRow
from agent_core.store.titles import TITLE_MAX_CHARS, UNTITLED, clean_title
from agent_core.store.transactions import SnapshotNotFound, StoreAccess, new_id

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Snapshots:
    """Saving, listing, previewing, deleting and forking snapshots."""

    access: StoreAccess
    log: EventLog
    """The log a snapshot's events are read from."""

    def save(self, session_id: str, name: str | None = None) -> SnapshotInfo:
        """A named, immutable snapshot of the session as it is now (default name ``Snapshot N``)."""
        self.access.actor.check_writable()
        with self.access.write() as db:
            session = self.access.session(db, session_id, write=True)
            taken = set(db.exec(select(SnapshotRow.name).where(col(SnapshotRow.session_id) == session_id)))
            name = clean_title(name) if name else _free_name(taken)
            if name in taken:
                raise ValueError(f"this session already has a snapshot named {name!r}")
            row = SnapshotRow(
                id=new_id("snap"),
                session_id=session_id,
                name=name,
                created_at=time.time(),
                upto_seq=session.last_seq,
                title=session.title,
                config=session.config,
                owner=self.access.actor.owner,
            )
            db.add(row)
            db.commit()
            return SnapshotInfo.of(row)

    def list(self, session_id: str) -> list[SnapshotInfo]:
        """The session's snapshots, oldest first."""
        query = select(SnapshotRow).where(col(SnapshotRow.session_id) == session_id)
        with self.access.read() as db:
            self.access.session(db, session_id)
            rows = db.exec(query.order_by(col(SnapshotRow.created_at), col(SnapshotRow.upto_seq)))
            return [self.access.seen(SnapshotInfo.of(row)) for row in rows]

    def get(self, snapshot_id: str) -> SnapshotInfo:
        """One snapshot; raises SnapshotNotFound."""
        with self.access.read() as db:
            return self.access.seen(SnapshotInfo.of(self.access.snapshot(db, snapshot_id)))

    def events(self, snapshot_id: str) -> list[Event]:
        """The events a snapshot holds (for a preview before forking it)."""
        snapshot = self.get(snapshot_id)
        return self.log.events(snapshot.session_id, upto_seq=snapshot.upto_seq)

    def delete(self, snapshot_id: str) -> None:
        """Delete a snapshot (its session and the sessions forked from it stay)."""
        self.access.actor.check_writable()
        with self.access.write() as db:
            self.access.snapshot(db, snapshot_id, write=True)
            if db.exec(delete(SnapshotRow).where(col(SnapshotRow.id) == snapshot_id)).rowcount == 0:
                raise SnapshotNotFound(f"no snapshot {snapshot_id!r}")
            db.commit()

    def fork(self, snapshot_id: str, *, title: str | None = None) -> SessionInfo:
        """A new session of the actor's holding a copy of the snapshot's events; the original is not touched."""
        self.access.actor.check_writable()
        with self.access.write() as db:
            snapshot = self.access.snapshot(db, snapshot_id)
            now = time.time()
            row = SessionRow(
                id=new_id("ses"),
                title=clean_title(title) if title else _fork_title(snapshot),
                created_at=now,
                updated_at=now,
                last_seq=snapshot.upto_seq,
                config=snapshot.config,
                parent_id=snapshot.session_id,
                forked_from=snapshot.id,
                owner=self.access.actor.owner,
            )
            db.add(row)
            db.flush()
            db.exec(copy_events(snapshot.session_id, row.id, snapshot.upto_seq))
            db.commit()
            info = SessionInfo.of(row)
        log.info("forked snapshot %s into session %s", snapshot_id, info.id)
        return info


def _free_name(taken: set[str]) -> str:
    n = len(taken) + 1
    while f"Snapshot {n}" in taken:
        n += 1
    return f"Snapshot {n}"


def _fork_title(snapshot: SnapshotRow) -> str:
    return f"{snapshot.title or UNTITLED} ({snapshot.name})"[:TITLE_MAX_CHARS]
