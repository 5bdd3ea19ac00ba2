"""Whole sessions in and out of the store (``store.dumps``), each in one transaction: what session files are made of."""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlmodel import Session, col, select

from agent_core.store.event_log import INSERT_EVENTS, STORED_COLUMNS, event_rows
from agent_core.store.records import SessionDump, SessionInfo, SnapshotInfo, StoredEvent, fields_of
from agent_core.store.tables import SessionRecord, SessionRow, SnapshotRecord, SnapshotRow
from agent_core.store.transactions import StoreAccess, new_id

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Dumps:
    """Reading and writing a whole session: metadata, events and snapshots."""

    access: StoreAccess

    def read(self, session_id: str) -> SessionDump:
        """Everything about a session, read in one transaction (for export; not through a share link)."""
        self.access.actor.check_writable()
        snapshots_query = select(SnapshotRow).where(col(SnapshotRow.session_id) == session_id)
        with self.access.read() as db:
            row = self.access.session(db, session_id)
            events = [StoredEvent(*r) for r in db.exec(event_rows(select(*STORED_COLUMNS), session_id))]
            snapshots = sorted(
                (SnapshotInfo.of(s) for s in db.exec(snapshots_query)), key=lambda s: (s.created_at, s.upto_seq, s.id)
            )
            return SessionDump.model_construct(**fields_of(row, SessionRecord), events=events, snapshots=snapshots)

    def add(self, dump: SessionDump, *, imported: bool = False) -> SessionInfo:
        """Write a whole session, the actor's, in one transaction (all or nothing); ids already in use are replaced.

        ``imported``: it comes from a session file, so the new session is marked an imported copy (``imported_at``).
        """
        self.access.actor.check_writable()
        with self.access.write() as db:
            session_id = dump.id if db.get(SessionRow, dump.id) is None else new_id("ses")
            parent = dump.parent_id if dump.parent_id and db.get(SessionRow, dump.parent_id) else None
            row = SessionRow(
                **fields_of(dump, SessionRecord)
                | {
                    "id": session_id,
                    "title": self.access.redact(dump.title) if dump.title else None,
                    "last_seq": max((e.seq for e in dump.events), default=0),
                    "parent_id": parent,
                    "owner": self.access.actor.owner,
                    "imported_at": time.time() if imported else None,
                }
            )
            db.add(row)
            db.flush()
            if dump.events:
                db.exec(INSERT_EVENTS, params=[self._event_params(session_id, e) for e in dump.events])
            db.add_all(self._snapshot_rows(db, session_id, dump.snapshots))
            db.commit()
            info = SessionInfo.of(row)
        log.info("imported session %s (%d events, %d snapshots)", info.id, len(dump.events), len(dump.snapshots))
        return info

    def _event_params(self, session_id: str, event: StoredEvent) -> dict[str, Any]:
        return {"session_id": session_id, **event._asdict(), "payload": self.access.redact(event.payload)}

    def _snapshot_rows(self, db: Session, session_id: str, snapshots: Sequence[SnapshotInfo]) -> list[SnapshotRow]:
        ids = [s.id for s in snapshots]
        taken = set(db.exec(select(SnapshotRow.id).where(col(SnapshotRow.id).in_(ids)))) if ids else set()
        return [
            SnapshotRow(
                **fields_of(s, SnapshotRecord)
                | {
                    "id": new_id("snap") if s.id in taken else s.id,
                    "session_id": session_id,
                    "title": self.access.redact(s.title) if s.title else None,
                    "owner": self.access.actor.owner,
                }
            )
            for s in snapshots
        ]
