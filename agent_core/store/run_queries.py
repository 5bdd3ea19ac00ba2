"""Queries about a session's runs: the interrupted run (started, never finished) that can be resumed."""

from __future__ import annotations

import json
from typing import Any, cast

from sqlalchemy import Row
from sqlmodel import col, func, select

from agent_core.store.records import InterruptedRun
from agent_core.store.tables import EventRow
from agent_core.store.transactions import StoreAccess

_BOUNDARIES = ("run_started", "run_finished")


def interrupted_run(access: StoreAccess, session_id: str) -> InterruptedRun | None:
    """The session's last run if it has no ``run_finished`` event (it can be resumed), else None."""
    last_boundary = (
        select(EventRow.seq, EventRow.run_id, EventRow.type, EventRow.payload)
        .where(col(EventRow.session_id) == session_id, col(EventRow.type).in_(_BOUNDARIES))
        .order_by(col(EventRow.seq).desc())
        .limit(1)
    )
    with access.read() as db:
        access.session(db, session_id)
        started = cast("Row[Any] | None", db.exec(last_boundary).first())  # sqlmodel types the row as a tuple
        if started is None or started.type != "run_started":
            return None
        tail = select(func.max(EventRow.seq), func.max(EventRow.ts)).where(
            col(EventRow.session_id) == session_id,
            col(EventRow.seq) >= started.seq,
            col(EventRow.run_id) == started.run_id,
        )
        last_seq, last_ts = db.exec(tail).one()
    question = json.loads(started.payload).get("question", "")
    return InterruptedRun(started.run_id, str(question), started.seq, int(last_seq), float(last_ts))
