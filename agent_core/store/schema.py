"""Schema migrations: the Alembic revisions in ``migrations/``, applied on first use under a lock.

Any number of processes may open one empty or old database together: each takes the migration lock
(``pg_advisory_xact_lock`` on PostgreSQL; ``BEGIN IMMEDIATE``, SQLite's write lock, there), reads the
revision again, and upgrades only if it is still behind, all in one transaction, so the others find the
work done. A database already at the head revision is opened without taking any lock.

A database made before migrations (it has ``sparrow_schema`` but no revision) is upgraded from the baseline,
which creates only what it lacks. One with a revision this build does not know was written by a newer
Sparrow and is refused, untouched.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, Engine, inspect, select, text
from sqlalchemy.engine import URL
from sqlmodel import col

from agent_core.store.memory_index import create_sqlite_fts, has_fts
from agent_core.store.tables import TABLES, MemoryRow, SchemaRow

HEAD_REVISION = "0008_experiment_judge"
"""The newest revision in ``migrations/`` (a test holds it to Alembic's own head): a database at it opens without
importing Alembic, which takes about half a second."""
VERSION_TABLE = "sparrow_alembic_version"
"""Where Alembic records the revision (not ``alembic_version``, so another app's migrations may share the database)."""
SCHEMA_VERSION = 1
"""The number in ``sparrow_schema`` that builds from before migrations check; revisions track changes since."""
LOCK_KEY = 0x5370_6172_726F_7731
"""The PostgreSQL advisory lock held while migrating ("Sparrow1")."""


class SchemaVersionError(RuntimeError):
    """The database was written by a newer Sparrow, or holds tables Sparrow did not create."""


@dataclass(frozen=True)
class SchemaState:
    """What a database holds of Sparrow's schema."""

    revision: str | None
    """The Alembic revision it is at; None before any migration ran."""
    legacy_version: int | None
    """The ``sparrow_schema`` version (1 since the start of Sparrow); None on an empty database."""
    foreign: tuple[str, ...] = ()
    """Tables with Sparrow's names in a database Sparrow never marked."""
    fts_missing: bool = False
    """SQLite only: ``memories`` exists but its full-text index was lost (it is rebuilt from the rows)."""

    @property
    def at_head(self) -> bool:
        """True when no migration is due."""
        return self.revision == head_revision() and not self.fts_missing


def head_revision() -> str:
    """The newest revision this build knows."""
    return HEAD_REVISION


def known_revisions() -> list[str]:
    """Every revision of this build, oldest first."""
    return _migrations().known_revisions()


def read_state(conn: Connection) -> SchemaState:
    """What ``conn``'s database holds (read only)."""
    names = set(inspect(conn).get_table_names())
    revision = (
        conn.execute(text(f"SELECT version_num FROM {VERSION_TABLE}")).scalar() if VERSION_TABLE in names else None
    )
    legacy = None
    if SchemaRow.__tablename__ in names:
        legacy = conn.execute(select(col(SchemaRow.version)).where(col(SchemaRow.id) == 1)).scalar()
        if legacy is None:
            raise SchemaVersionError("the database has a sparrow_schema table without a version row")
    marked = revision is not None or legacy is not None
    foreign = () if marked else tuple(sorted(names & {t.name for t in TABLES}))
    fts_missing = conn.dialect.name == "sqlite" and MemoryRow.__tablename__ in names and not has_fts(conn)
    return SchemaState(revision, None if legacy is None else int(legacy), foreign, fts_missing)


def check(state: SchemaState, url: URL) -> None:
    """Refuse a database written by a newer Sparrow, or one whose tables Sparrow did not create."""
    where = url.render_as_string(hide_password=True)
    if state.foreign:
        raise SchemaVersionError(
            f"the database already has table(s) {', '.join(state.foreign)} that Sparrow did not create; "
            "set DATABASE_URL to another database"
        )
    if state.revision not in (None, HEAD_REVISION) and state.revision not in known_revisions():
        raise SchemaVersionError(
            f"the database {where} was written by a newer Sparrow (schema revision {state.revision}); this build "
            f"reads schema revisions up to {head_revision()}. Upgrade Sparrow, or set DATABASE_URL to another database."
        )
    if state.legacy_version is not None and state.legacy_version > SCHEMA_VERSION:
        raise SchemaVersionError(
            f"the database {where} was written by a newer Sparrow (schema version {state.legacy_version}); "
            f"this build reads schema version {SCHEMA_VERSION}. Upgrade Sparrow, or set DATABASE_URL to "
            "another database."
        )


def ensure_schema(engine: Engine, locked: Engine) -> None:
    """Bring ``engine``'s database to the head revision if it is behind (``locked``: its write-locking twin)."""
    with engine.connect() as conn:
        state = read_state(conn)
    check(state, engine.url)
    if not state.at_head:
        upgrade(locked)


def upgrade(locked: Engine) -> tuple[SchemaState, str]:
    """Upgrade to the head revision under the migration lock, in one transaction; (state before, head)."""
    with locked.begin() as conn:
        if conn.dialect.name == "postgresql":
            conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": LOCK_KEY})
        before = read_state(conn)  # again: another process may have migrated while this one waited
        check(before, locked.url)
        if before.revision != head_revision():
            _migrations().upgrade_to_head(conn)
        if before.fts_missing:
            create_sqlite_fts(conn)
    return before, head_revision()


def _migrations() -> Any:
    """The Alembic side (``migrate.py``), imported only when a database is not at the head revision."""
    return importlib.import_module("agent_core.store.migrate")
