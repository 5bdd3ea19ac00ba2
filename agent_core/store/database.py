"""The engine: ``DATABASE_URL`` or a SQLite file under ``SPARROW_DATA_DIR``; WAL, busy timeout, migrations.

SQLite connections are set up so that SQLAlchemy emits ``BEGIN`` itself (the ``sqlite3`` module's own
transaction handling is switched off): reads start a deferred transaction, and writes go through
``writer(engine)``, whose transactions start with ``BEGIN IMMEDIATE``. Taking the write lock up front
means a writer waits (up to the busy timeout) instead of failing with "database is locked" when two
writers meet.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, event, make_url, text
from sqlalchemy.engine import URL
from sqlmodel import create_engine

from agent_core.env_settings import env_settings
from agent_core.store.one_connection import OneConnectionPool
from agent_core.store.outage import read_only_refusal
from agent_core.store.schema import (
    SCHEMA_VERSION,
    SchemaState,
    SchemaVersionError,
    check,
    ensure_schema,
    read_state,
    upgrade,
)
from agent_core.store.storable import guard_text

__all__ = ["SCHEMA_VERSION", "SchemaVersionError", "create_db_engine", "database_url", "lock_name", "writer"]

DEFAULT_DB_FILE = "sparrow.db"
BUSY_TIMEOUT_S = 15.0
"""How long a connection waits for another writer before giving up."""
_WRITE_OPTION = "sparrow_write"


def database_url(url: str | None = None) -> str:
    """The URL to use: ``url``, else ``$DATABASE_URL``, else ``sqlite:///`` + ``$SPARROW_DATA_DIR/sparrow.db``.

    ``postgres://`` and ``postgresql://`` (what Heroku, Render, Railway, Supabase and Neon hand out) name the
    driver explicitly: psycopg 3, the one the ``postgres`` extra installs (SQLAlchemy would pick psycopg2).
    """
    if url:
        return with_driver(url)
    env = env_settings()
    if env.database_url:
        return with_driver(env.database_url)
    return f"sqlite:///{(env.sparrow_data_dir / DEFAULT_DB_FILE).absolute()}"


def with_driver(url: str) -> str:
    """``postgres://…`` and ``postgresql://…`` as ``postgresql+psycopg://…``; any other URL unchanged."""
    for scheme in ("postgres://", "postgresql://"):
        if url.startswith(scheme):
            return "postgresql+psycopg://" + url.removeprefix(scheme)
    return url


def create_db_engine(url: str | None = None, *, echo: bool = False, migrate: bool = True) -> Engine:
    """An engine for ``url`` (see ``database_url``), its schema migrated first unless ``migrate`` is false."""
    parsed = make_url(database_url(url))
    engine = _sqlite_engine(parsed, echo) if parsed.get_backend_name() == "sqlite" else _other_engine(parsed, echo)
    guard_text(engine)
    event.listen(engine, "handle_error", read_only_refusal)
    if not migrate:
        return engine
    try:
        ensure_schema(engine, writer(engine))
    except BaseException:
        engine.dispose()
        raise
    return engine


def writer(engine: Engine) -> Engine:
    """The same engine, but its transactions take the write lock at once (``BEGIN IMMEDIATE`` on SQLite)."""
    return engine.execution_options(**{_WRITE_OPTION: True})


def lock_name(conn: Connection, name: str) -> None:
    """Serialise the writers of ``name`` until this transaction ends (PostgreSQL: an advisory lock).

    On SQLite, transactions begun by ``writer`` already hold the whole database's write lock.
    """
    if conn.dialect.name == "postgresql":
        conn.execute(text("SELECT pg_advisory_xact_lock(hashtext(:name))"), {"name": name})


def upgrade_database(url: str | None = None) -> tuple[SchemaState, str]:
    """Bring a database to this build's schema now (``db upgrade``); (its state before, the head revision)."""
    engine = create_db_engine(url, migrate=False)
    try:
        return upgrade(writer(engine))
    finally:
        engine.dispose()


def schema_state(url: str | None = None) -> SchemaState:
    """What a database holds of Sparrow's schema, read without changing anything (``db current``).

    Raises SchemaVersionError for a database written by a newer Sparrow, or not by Sparrow.
    """
    engine = create_db_engine(url, migrate=False)
    try:
        with engine.connect() as conn:
            state = read_state(conn)
        check(state, engine.url)
        return state
    finally:
        engine.dispose()


def _other_engine(url: URL, echo: bool) -> Engine:
    return create_engine(url, echo=echo, pool_pre_ping=True)


def _sqlite_engine(url: URL, echo: bool) -> Engine:
    in_memory = url.database in (None, "", ":memory:") or "mode=memory" in str(url)
    connect_args: dict[str, Any] = {"check_same_thread": False, "timeout": BUSY_TIMEOUT_S}
    if in_memory:
        engine = create_engine(  # the database is its one connection: one thread at a time
            url, echo=echo, connect_args=connect_args, poolclass=OneConnectionPool, pool_timeout=BUSY_TIMEOUT_S
        )
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
