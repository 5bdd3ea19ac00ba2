"""The engine: ``DATABASE_URL`` or a SQLite file under ``SPARROW_DATA_DIR``; WAL, busy timeout, schema version.

SQLite connections are set up so that SQLAlchemy emits ``BEGIN`` itself (the ``sqlite3`` module's own
transaction handling is switched off): reads start a deferred transaction, and writes go through
``writer(engine)``, whose transactions start with ``BEGIN IMMEDIATE``. Taking the write lock up front
means a writer waits (up to the busy timeout) instead of failing with "database is locked" when two
writers meet.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, event, inspect, make_url, select
from sqlalchemy.engine import URL
from sqlmodel import SQLModel, StaticPool, create_engine

from agent_core.store.memory_index import create_memory_index
from agent_core.store.models import TABLES, SchemaRow

SCHEMA_VERSION = 1
"""The schema version this build writes and reads."""
DEFAULT_DB_FILE = "sparrow.db"
BUSY_TIMEOUT_S = 15.0
"""How long a connection waits for another writer before giving up."""
_WRITE_OPTION = "sparrow_write"


class SchemaVersionError(RuntimeError):
    """The database was written by a newer Sparrow, or holds tables Sparrow did not create."""


def database_url(url: str | None = None) -> str:
    """The URL to use: ``url``, else ``$DATABASE_URL``, else ``sqlite:///`` + ``$SPARROW_DATA_DIR/sparrow.db``."""
    if url:
        return url
    if os.environ.get("DATABASE_URL"):
        return os.environ["DATABASE_URL"]
    data_dir = Path(os.environ.get("SPARROW_DATA_DIR") or "data")
    return f"sqlite:///{(data_dir / DEFAULT_DB_FILE).absolute()}"


def create_db_engine(url: str | None = None, *, echo: bool = False) -> Engine:
    """An engine for ``url`` (see ``database_url``) with its tables created and its schema version checked."""
    parsed = make_url(database_url(url))
    engine = _sqlite_engine(parsed, echo) if parsed.get_backend_name() == "sqlite" else _other_engine(parsed, echo)
    try:
        create_db_and_tables(engine)
    except BaseException:
        engine.dispose()
        raise
    return engine


def writer(engine: Engine) -> Engine:
    """The same engine, but its transactions take the write lock at once (``BEGIN IMMEDIATE`` on SQLite)."""
    return engine.execution_options(**{_WRITE_OPTION: True})


def create_db_and_tables(engine: Engine) -> None:
    """Create Sparrow's tables and memory index if needed, record the schema version; refuse a newer or foreign one."""
    with writer(engine).begin() as conn:
        stored = _stored_version(conn)
        if stored is None:
            _refuse_foreign_tables(conn)
        elif stored > SCHEMA_VERSION:
            raise SchemaVersionError(
                f"the database {_display(engine.url)} was written by a newer Sparrow (schema version {stored}); "
                f"this build reads schema version {SCHEMA_VERSION}. Upgrade Sparrow, or set DATABASE_URL to "
                "another database."
            )
        elif stored < SCHEMA_VERSION:
            raise SchemaVersionError(f"the database {_display(engine.url)} has an unknown schema version {stored}")
        SQLModel.metadata.create_all(conn, tables=TABLES)
        create_memory_index(conn)
        if stored is None:
            conn.execute(SchemaRow.__table__.insert().values(id=1, version=SCHEMA_VERSION))


def _stored_version(conn: Connection) -> int | None:
    if not inspect(conn).has_table(SchemaRow.__tablename__):
        return None
    version = conn.execute(select(SchemaRow.version).where(SchemaRow.id == 1)).scalar()
    if version is None:
        raise SchemaVersionError("the database has a sparrow_schema table without a version row")
    return int(version)


def _refuse_foreign_tables(conn: Connection) -> None:
    existing = set(inspect(conn).get_table_names())
    clash = sorted(existing & {t.name for t in TABLES})
    if clash:
        raise SchemaVersionError(
            f"the database already has table(s) {', '.join(clash)} that Sparrow did not create; "
            "set DATABASE_URL to another database"
        )


def _display(url: URL) -> str:
    return url.render_as_string(hide_password=True)


def _other_engine(url: URL, echo: bool) -> Engine:
    return create_engine(url, echo=echo, pool_pre_ping=True)


def _sqlite_engine(url: URL, echo: bool) -> Engine:
    in_memory = url.database in (None, "", ":memory:") or "mode=memory" in str(url)
    connect_args: dict[str, Any] = {"check_same_thread": False, "timeout": BUSY_TIMEOUT_S}
    if in_memory:
        engine = create_engine(url, echo=echo, connect_args=connect_args, poolclass=StaticPool)
    else:
        Path(url.database or DEFAULT_DB_FILE).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, echo=echo, connect_args=connect_args, pool_size=10, max_overflow=20)
    event.listen(engine, "connect", _on_connect(wal=not in_memory))
    event.listen(engine, "begin", _on_begin)
    return engine


def _on_connect(*, wal: bool) -> Any:
    def configure(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # SQLAlchemy emits BEGIN itself (see _on_begin)
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
            cursor.execute("PRAGMA foreign_keys = ON")
            if wal:
                _enable_wal(cursor)
                cursor.execute("PRAGMA synchronous = NORMAL")
        finally:
            cursor.close()

    return configure


def _enable_wal(cursor: Any) -> None:
    """Switch to WAL once per database file; concurrent first opens may briefly see it locked."""
    deadline = time.monotonic() + BUSY_TIMEOUT_S
    while True:
        try:
            if cursor.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
                cursor.execute("PRAGMA journal_mode = WAL")
            return
        except Exception as exc:  # sqlite3.OperationalError: database is locked
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def _on_begin(conn: Connection) -> None:
    immediate = conn.get_execution_options().get(_WRITE_OPTION, False)
    conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")
