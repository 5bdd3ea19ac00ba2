"""Read-only share links: a session's (or a snapshot's) owner hands out a token that opens it for reading only.

The token (``secrets.token_urlsafe(32)``, 256 random bits) is shown once, to its creator; the store keeps only
its SHA-256, so a leaked database opens nothing. ``store.shares.open`` finds the link by that hash (a lookup
that leaks nothing about the token: the attacker does not choose the hash); a revoked, expired, unknown or
malformed token all get the same ``ShareLinkInvalid``.
Whoever holds a valid link acts as ``Actor.viewer``: one session, up to one point, nothing changed.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import time
from dataclasses import dataclass
from typing import Literal

from sqlmodel import col, select, update

from agent_core.store.access import Actor, SnapshotNotYours, StoreAccess, new_id
from agent_core.store.tables import ShareLinkRow, SnapshotRow

_TOKEN = re.compile(r"^[A-Za-z0-9_-]{20,100}$")
MAX_LINK_DAYS = 366.0


class ShareLinkInvalid(LookupError):
    """The token opens nothing: unknown, malformed, revoked or expired (the message does not say which)."""


@dataclass(frozen=True)
class ShareLinkInfo:
    """A share link as its owner lists it (never the token)."""

    id: str
    session_id: str
    snapshot_id: str | None
    created_at: float
    expires_at: float | None
    revoked_at: float | None
    allow_anonymous: bool

    @property
    def active(self) -> bool:
        """True while the link opens its session."""
        return self.revoked_at is None and (self.expires_at is None or self.expires_at > time.time())

    @property
    def state(self) -> Literal["active", "revoked", "expired"]:
        """Whether the link opens its session, and if not, why."""
        return "active" if self.active else "revoked" if self.revoked_at else "expired"

    @classmethod
    def of(cls, row: ShareLinkRow) -> ShareLinkInfo:
        """The view of a stored row."""
        return cls(
            row.id, row.session_id, row.snapshot_id, row.created_at, row.expires_at, row.revoked_at, row.allow_anonymous
        )


@dataclass(frozen=True)
class ShareGrant:
    """What a valid token opens."""

    link_id: str
    session_id: str
    upto_seq: int | None
    """For a snapshot's link: the last event shown."""
    allow_anonymous: bool

    def actor(self) -> Actor:
        """The read-only actor the viewer's store calls are made for."""
        return Actor.viewer(self.session_id, self.upto_seq)


def token_hash(token: str) -> str:
    """Hex SHA-256 of a token: what the store keeps."""
    return hashlib.sha256(token.encode("ascii")).hexdigest()


@dataclass(frozen=True)
class ShareLinks:
    """Creating, listing, revoking and opening share links (``store.shares``)."""

    access: StoreAccess

    def create(
        self,
        session_id: str,
        *,
        snapshot_id: str | None = None,
        expires_in_days: float | None = None,
        allow_anonymous: bool = False,
    ) -> tuple[str, ShareLinkInfo]:
        """A new link to the actor's session (or one of its snapshots); returns (token, link). Shown once."""
        self.access.actor.check_writable()
        if expires_in_days is not None and not 0 < expires_in_days <= MAX_LINK_DAYS:
            raise ValueError(f"a share link expires after more than 0 and at most {MAX_LINK_DAYS:g} days")
        token, now = secrets.token_urlsafe(32), time.time()
        with self.access.write() as db:
            self.access.session(db, session_id, write=True)
            if snapshot_id is not None and self.access.snapshot(db, snapshot_id).session_id != session_id:
                raise SnapshotNotYours(f"no snapshot {snapshot_id!r}")
            row = ShareLinkRow(
                id=new_id("shr"),
                token_hash=token_hash(token),
                session_id=session_id,
                snapshot_id=snapshot_id,
                created_by=self.access.actor.owner,
                created_at=now,
                expires_at=None if expires_in_days is None else now + expires_in_days * 86400,
                allow_anonymous=allow_anonymous,
            )
            db.add(row)
            db.commit()
            return token, ShareLinkInfo.of(row)

    def list(self, session_id: str) -> list[ShareLinkInfo]:
        """The session's links, newest first (revoked and expired ones included, marked so)."""
        query = select(ShareLinkRow).where(col(ShareLinkRow.session_id) == session_id)
        with self.access.read() as db:
            self.access.session(db, session_id, write=True)
            return [ShareLinkInfo.of(r) for r in db.exec(query.order_by(col(ShareLinkRow.created_at).desc()))]

    def revoke(self, link_id: str) -> None:
        """Stop a link from opening anything (at once, on every replica); raises ShareLinkInvalid if unknown."""
        with self.access.write() as db:
            row = db.get(ShareLinkRow, link_id)
            if row is None:
                raise ShareLinkInvalid(f"no share link {link_id!r}")
            self.access.session(db, row.session_id, write=True)
            statement = update(ShareLinkRow).where(
                col(ShareLinkRow.id) == link_id, col(ShareLinkRow.revoked_at).is_(None)
            )
            db.exec(statement.values(revoked_at=time.time()))
            db.commit()

    def open(self, token: str) -> ShareGrant:
        """What ``token`` opens; raises ShareLinkInvalid (same message for every reason)."""
        invalid = ShareLinkInvalid("this share link is not valid: it may have been revoked or have expired")
        if not _TOKEN.match(token):
            raise invalid
        digest = token_hash(token)
        with self.access.read() as db:
            row = db.exec(select(ShareLinkRow).where(col(ShareLinkRow.token_hash) == digest)).first()
            if row is None or not ShareLinkInfo.of(row).active:
                raise invalid
            snapshot = db.get(SnapshotRow, row.snapshot_id) if row.snapshot_id else None
        return ShareGrant(row.id, row.session_id, snapshot.upto_seq if snapshot else None, row.allow_anonymous)
