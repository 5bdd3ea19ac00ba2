"""What a list of sessions needs to tell them apart and filter them: each one's questions and last run status.

One query over the run start and end events of the given sessions (their ids come from ``store.sessions.list``,
which already applies the actor's visibility), instead of reading every event of every session.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field

from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from agent_core.store.tables import EventRow

_KINDS = ("run_started", "run_finished")


@dataclass
class SessionDigest:
    """A session's questions (oldest first) and the status of its last run (None: no run, or one in progress)."""

    questions: list[str] = field(default_factory=list)
    status: str | None = None


def session_digests(engine: Engine, session_ids: Sequence[str]) -> dict[str, SessionDigest]:
    """The digest of each of ``session_ids`` (every id gets one, empty for a session without runs)."""
    digests = {session_id: SessionDigest() for session_id in session_ids}
    if not digests:
        return digests
    query = (
        select(EventRow.session_id, EventRow.type, EventRow.payload)
        .where(col(EventRow.type).in_(_KINDS), col(EventRow.session_id).in_(list(digests)))
        .order_by(col(EventRow.session_id), col(EventRow.seq))
    )
    with Session(engine) as db:
        for session_id, kind, payload in db.exec(query):
            data = json.loads(payload)
            digest = digests[session_id]
            if kind == "run_started":
                digest.questions.append(str(data.get("question", "")))
                digest.status = None
            else:
                digest.status = data.get("status")
    return digests
