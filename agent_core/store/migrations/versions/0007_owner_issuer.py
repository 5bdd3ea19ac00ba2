"""Owners keyed by issuer and subject: owner columns widened to hold ``ISSUER#SUBJECT`` (see ``access.owner_key``).

Existing owners stay as they are, bare subjects: before this revision only the ``[auth]`` provider could sign
anyone in, so a bare subject is that provider's user (or a CLI ``--user``). When that user next signs in through
the ``[auth]`` provider, their rows are re-keyed to ``ISSUER#SUBJECT`` (``store.sessions.adopt_owner``); a user of
another provider with the same subject never matches a bare subject, so nothing changes hands.

Revision ID: 0007_owner_issuer
Revises: 0006_experiments
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007_owner_issuer"
down_revision: str | None = "0006_experiments"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

WIDE, NARROW = 520, 200
COLUMNS = (("sessions", "owner"), ("snapshots", "owner"), ("memories", "owner"))
COLUMNS += (("runs", "started_by"), ("share_links", "created_by"), ("datasets", "owner"), ("experiments", "owner"))


def _resize(old: int, new: int) -> None:
    bind = op.get_bind()
    if bind.dialect.name == "sqlite":
        _resize_sqlite(old, new)
        return
    for table, column in COLUMNS:
        op.alter_column(table, column, type_=sa.String(new), existing_nullable=column != "started_by")


def _resize_sqlite(old: int, new: int) -> None:
    """SQLite cannot alter a column's type, and copying ``sessions`` would cascade-delete its events. A VARCHAR's
    length is only a name to SQLite (same affinity, same file format), so the declarations are rewritten in place:
    the documented ``writable_schema`` procedure (sqlite.org/lang_altertable.html, section 7)."""
    bind = op.get_bind()
    version = bind.execute(sa.text("PRAGMA schema_version")).scalar() or 0
    bind.execute(sa.text("PRAGMA writable_schema = ON"))
    for table, column in COLUMNS:
        bind.execute(
            sa.text("UPDATE sqlite_master SET sql = replace(sql, :old, :new) WHERE type = 'table' AND name = :table"),
            {"old": f"{column} VARCHAR({old})", "new": f"{column} VARCHAR({new})", "table": table},
        )
    bind.execute(sa.text(f"PRAGMA schema_version = {int(version) + 1}"))
    bind.execute(sa.text("PRAGMA writable_schema = OFF"))


def upgrade() -> None:
    """Widen the owner columns."""
    _resize(NARROW, WIDE)


def downgrade() -> None:
    """Narrow them again; an owner longer than the old limit cannot go back, and says so."""
    bind = op.get_bind()
    for table, column in COLUMNS:
        longest = bind.execute(sa.text(f"SELECT max(length({column})) FROM {table}")).scalar() or 0
        if longest > NARROW:
            raise RuntimeError(f"{table}.{column} holds an owner of {longest} characters: 0005 allows {NARROW}")
    _resize(WIDE, NARROW)
