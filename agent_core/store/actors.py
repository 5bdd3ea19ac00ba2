"""Who is acting: the user a store call is made for, and what that user may see and change.

Every ``SessionStore`` acts for one ``Actor`` (``store.acting_as(actor)``; ``LOCAL_ADMIN`` by default, so a
laptop without sign-in works as before). The rules, in one place:

- an admin sees and changes everything, including data without an owner (made before sign-in was on),
  which an admin can claim;
- anyone else sees and changes only what they own;
- a share-link viewer (``Actor.viewer``) reads one session, up to one point, and changes nothing.

Refusals raise ``NotYours`` (a ``SessionNotFound``, see ``transactions``) with the message a missing id gets,
so a refusal tells nothing about another user's session, not even that it exists.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from agent_core.env_settings import env_settings

OWNER_MAX_CHARS = 520
"""Longest owner stored: ``ISSUER#SUBJECT`` (an issuer URL and a subject of at most 255 characters each)."""
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
