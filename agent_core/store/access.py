"""Who acts and what they may touch: the ``Actor`` a store call is made for, and ``StoreAccess``, the way in.

Every ``SessionStore`` acts for one ``Actor`` (``store.acting_as(actor)``; ``LOCAL_ADMIN`` by default, so a laptop
without sign-in just works): an admin sees and changes everything, including data without an owner, which an admin
may claim; anyone else sees and changes only what they own; a share-link viewer (``Actor.viewer``) reads one
session, up to one point, and changes nothing. Every part of the store works through one ``StoreAccess`` (the
engine, its write-locking twin, the redactor, the actor), whose row lookups apply those rules; each store method is
one unit of work, and writes take the write lock up front (``database.writer``), so concurrent writers wait for
each other instead of failing. A refusal raises ``NotYours`` (a ``SessionNotFound``) worded exactly as a missing
id, so it tells nothing about another user's session, not even that it exists.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

from sqlalchemy import Engine
from sqlmodel import Session, SQLModel

from agent_core.env_settings import env_settings
from agent_core.store.database import writer
from agent_core.store.redaction import Redactor
from agent_core.store.tables import OWNER_MAX_CHARS, SessionConfig, SessionRow, SnapshotRow, clean_title

HIDDEN_IDENTITY = "someone"
"""Who owns a session and who started its runs, as a share-link viewer is told: a link names nobody."""
ISSUER_SEP = "#"
"""Between issuer and subject in an owner key; an OpenID Connect issuer URL has no fragment, so never a ``#``."""


class ReadOnly(PermissionError):
    """The actor may only read (a share link): nothing can be created, run, changed or deleted."""


@dataclass(frozen=True)
class Actor:
    """The user a store call is made for."""

    subject: str | None
    """The OpenID Connect subject (``sub``) or the CLI's ``--user``; None for the local admin and share viewers."""
    email: str | None = None
    """Shown beside runs (attribution); never used to decide access."""
    is_admin: bool = False
    """Sees and changes everything, and may claim data without an owner."""
    shared_session: str | None = None
    """Share-link viewers only: the one session they may read."""
    shared_upto: int | None = None
    """Share-link viewers of a snapshot: they see the session's events up to this sequence number."""

    @classmethod
    def user(cls, subject: str, email: str | None = None, *, is_admin: bool = False) -> Actor:
        """A signed-in user (or a CLI ``--user``)."""
        if not subject or len(subject) > OWNER_MAX_CHARS:
            raise ValueError(f"a user subject is 1 to {OWNER_MAX_CHARS} characters")
        return cls(subject, email, is_admin)

    @classmethod
    def viewer(cls, session_id: str, upto_seq: int | None = None) -> Actor:
        """Someone holding a share link of one session (or of one snapshot: ``upto_seq``)."""
        return cls(None, shared_session=session_id, shared_upto=upto_seq)

    @property
    def read_only(self) -> bool:
        """True for share-link viewers."""
        return self.shared_session is not None

    @property
    def owner(self) -> str | None:
        """The owner recorded on what this actor creates (None: unowned, for the local admin)."""
        return self.subject

    @property
    def label(self) -> str:
        """How runs started by this actor are attributed: the email, else the subject, else ``local``."""
        return self.email or self.subject or ("share link" if self.read_only else "local")

    def may_read(self, session_id: str, owner: str | None) -> bool:
        """True when this actor may see the session ``session_id`` owned by ``owner``."""
        if self.read_only:
            return session_id == self.shared_session
        return self.is_admin or (owner is not None and owner == self.subject)

    def may_write(self, owner: str | None) -> bool:
        """True when this actor may change (run, rename, delete, snapshot) what ``owner`` owns."""
        return not self.read_only and (self.is_admin or (owner is not None and owner == self.subject))

    def check_writable(self) -> None:
        """Raise ReadOnly for a share-link viewer."""
        if self.read_only:
            raise ReadOnly("a share link opens this session read-only")


LOCAL_ADMIN = Actor(None, is_admin=True)
"""Whoever runs Sparrow without sign-in (a laptop, the CLI on its own machine): sees and changes everything."""


def admins(configured: Iterable[str] | str | None = None) -> frozenset[str]:
    """Admin emails and subjects: ``configured`` (a list or a comma-separated string) and ``$SPARROW_ADMINS``."""
    values = [configured] if isinstance(configured, str) else list(configured or [])
    values.extend(env_settings().sparrow_admins)
    return frozenset(p.strip().lower() for v in values for p in str(v).split(",") if p.strip())


def owner_key(issuer: str | None, subject: str) -> str:
    """Who owns what a signed-in user makes: ``ISSUER#SUBJECT`` (a subject is unique only within its issuer).

    Without an issuer (a CLI ``--user``, data from before issuers were recorded) the bare subject.
    """
    if not issuer:
        return subject
    if ISSUER_SEP in issuer:
        raise ValueError(f"an OpenID Connect issuer has no {ISSUER_SEP!r}: {issuer!r}")
    return f"{issuer}{ISSUER_SEP}{subject}"


def signed_in(
    subject: str,
    email: str | None,
    admin_list: frozenset[str],
    *,
    issuer: str | None = None,
    email_verified: bool = False,
) -> Actor:
    """The actor for a signed-in user, owning ``owner_key(issuer, subject)``.

    An admin when ``admin_list`` (lower-case) names their owner key, or their email and the provider says it is
    verified (``email_verified`` true: anyone can put any address on an unverified account), or, for a user
    without an issuer only, their bare subject.
    """
    key = owner_key(issuer, subject)
    ids = {key.lower()} | ({subject.lower()} if not issuer else set())
    if email and email_verified:
        ids.add(email.lower())
    return Actor.user(key, email, is_admin=bool(ids & admin_list))


Shown = TypeVar("Shown", bound=SQLModel)


class SessionNotFound(LookupError):
    """No session has this id."""


class SnapshotNotFound(LookupError):
    """No snapshot has this id."""


class NotYours(SessionNotFound):
    """The session exists but is not the actor's; worded exactly as a missing id, so it reveals nothing."""


class SnapshotNotYours(SnapshotNotFound):
    """The snapshot exists but is not the actor's; worded exactly as a missing id, so it reveals nothing."""


def new_id(prefix: str) -> str:
    """A fresh random id such as ``ses_3f2a9c0d1b7e4a55``."""
    return f"{prefix}_{uuid.uuid4().hex[:16]}"


@dataclass(frozen=True)
class StoreAccess:
    """What every part of the store works through: the engine, its write-locking twin, the redactor, the actor.

    The parts (sessions, log, snapshots, dumps, runs, shares) each hold the same one; ``acting_as`` makes a
    store over a copy naming another actor.
    """

    engine: Engine
    writer: Engine
    """The same engine's connections, each taking the write lock as its transaction begins."""
    redact: Redactor
    actor: Actor = LOCAL_ADMIN
    """Who the calls are made for (see ``Actor``)."""

    @classmethod
    def over(cls, engine: Engine, *, secrets: Iterable[str | None] = ()) -> StoreAccess:
        """Access to ``engine`` for the local admin, redacting ``secrets`` (API keys...) should an event hold one."""
        return cls(engine, writer(engine), Redactor(secrets))

    def seen(self, info: Shown) -> Shown:
        """``info`` (a session or snapshot) as the actor may see it: a share-link viewer is told no owner."""
        return info.model_copy(update={"owner": None}) if self.actor.read_only else info

    def session(self, db: Session, session_id: str, *, write: bool = False) -> SessionRow:
        """The session's row if the actor may read it (change it, with ``write``); else SessionNotFound/NotYours."""
        row = session_row(db, session_id)
        allowed = self.actor.may_write(row.owner) if write else self.actor.may_read(row.id, row.owner)
        if not allowed:
            if write and self.actor.may_read(row.id, row.owner):
                self.actor.check_writable()
            raise NotYours(f"no session {session_id!r}")
        return row

    def snapshot(self, db: Session, snapshot_id: str, *, write: bool = False) -> SnapshotRow:
        """The snapshot's row if the actor may read (change) its session; else SnapshotNotFound/SnapshotNotYours."""
        row = snapshot_row(db, snapshot_id)
        owner = session_row(db, row.session_id).owner  # a claimed session brings its snapshots along
        allowed = self.actor.may_write(owner) if write else self.actor.may_read(row.session_id, owner)
        if allowed and self.actor.shared_upto is not None:
            allowed = row.upto_seq <= self.actor.shared_upto
        if not allowed:
            raise SnapshotNotYours(f"no snapshot {snapshot_id!r}")
        return row

    def new_session_values(self, config: SessionConfig | None, title: str | None) -> dict[str, Any]:
        """A new session's column values, the actor's (its title cleaned and redacted), for a Core insert or a row.

        A Core insert skips making a table model, which costs about a millisecond.
        """
        now = time.time()
        return {
            "id": new_id("ses"),
            "owner": self.actor.owner,
            "title": self.redact(clean_title(title)) if title else None,
            "created_at": now,
            "updated_at": now,
            "last_seq": 0,
            "config": config or SessionConfig(),
        }

    def read(self) -> Session:
        """A read-only unit of work."""
        return Session(self.engine)

    def write(self) -> Session:
        """A unit of work that takes the write lock as it begins; rows stay readable after commit."""
        return Session(self.writer, expire_on_commit=False)


def session_row(db: Session, session_id: str) -> SessionRow:
    """The session's row; raises SessionNotFound."""
    row = db.get(SessionRow, session_id)
    if row is None:
        raise SessionNotFound(f"no session {session_id!r}")
    return row


def snapshot_row(db: Session, snapshot_id: str) -> SnapshotRow:
    """The snapshot's row; raises SnapshotNotFound."""
    row = db.get(SnapshotRow, snapshot_id)
    if row is None:
        raise SnapshotNotFound(f"no snapshot {snapshot_id!r}")
    return row
