"""The database: the engine for ``DATABASE_URL`` (or a SQLite file), its schema and migrations, and its faults.

``create_db_engine`` sets SQLite up so that SQLAlchemy emits ``BEGIN`` itself (the ``sqlite3`` module's own
transaction handling is off): reads start a deferred transaction, and writes go through ``writer(engine)``, whose
transactions begin with ``BEGIN IMMEDIATE``, so a writer waits (up to the busy timeout) instead of failing with
"database is locked" when two meet; files run in WAL mode, and an in-memory database, which lives in one connection,
lends it to one thread at a time (``OneConnectionPool``), so no thread's transaction runs inside another's. On
PostgreSQL every value bound for a text column is checked for U+0000 first (``check_storable``), which it cannot
store. The schema is the Alembic revisions in ``migrations/``, applied on first use: any number of processes may
open an empty or old database together, as each takes the migration lock (an advisory lock on PostgreSQL, the
write lock on SQLite), reads the revision again and upgrades only if it is still behind, all in one transaction; a
database at the head opens without a lock and without importing Alembic, and one written by a newer Sparrow is
refused, untouched. A write that fails because the database is briefly away (a locked file, a restarting server)
is repeated with backoff (``with_retry``, ``SPARROW_DB_RETRY_S`` seconds in all); past that, or at once for a
database that refuses writes for good, it stops with ``DatabaseUnavailable``, one sentence naming the problem.
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

from sqlalchemy import Connection, Engine, event, inspect, make_url, text
from sqlalchemy.engine import URL
from sqlalchemy.exc import DBAPIError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlalchemy.pool import ConnectionPoolEntry, StaticPool
from sqlmodel import create_engine

from agent_core.env_settings import env_settings
from agent_core.store.memory import create_sqlite_fts, has_fts
from agent_core.store.tables import TABLES, MemoryRow

if TYPE_CHECKING:
    from alembic.config import Config
    from alembic.script import ScriptDirectory

log = logging.getLogger(__name__)
T = TypeVar("T")

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


# ── an in-memory database: one connection, one thread at a time ───────────────────────────────────


class OneConnectionPool(StaticPool):
    """``StaticPool`` whose connection one thread holds at a time; others wait up to ``timeout`` seconds
    (``create_engine(..., pool_timeout=...)``)."""

    def __init__(self, creator: Any, timeout: float = 15.0, **kwargs: Any) -> None:
        super().__init__(creator, **kwargs)
        self._timeout = timeout
        self._turn = threading.Condition()
        self._holder: int | None = None
        self._held = 0
        self._waiting: deque[int] = deque()  # first come, first served: a busy thread cannot keep it

    def recreate(self) -> OneConnectionPool:
        """A new pool like this one (SQLAlchemy's ``dispose`` and reconnects call it), with the same timeout."""
        pool = cast(OneConnectionPool, super().recreate())  # StaticPool builds ``self.__class__`` from its options
        pool._timeout = self._timeout
        return pool

    def _do_get(self) -> ConnectionPoolEntry:
        me = threading.get_ident()
        with self._turn:
            if self._holder != me:
                self._waiting.append(me)
                if not self._turn.wait_for(lambda: self._holder is None and self._waiting[0] == me, self._timeout):
                    self._waiting.remove(me)
                    self._turn.notify_all()
                    raise PoolTimeout(f"the in-memory database stayed in use by other threads for {self._timeout:g} s")
                self._waiting.popleft()
                self._holder = me
            self._held += 1
        try:
            return super()._do_get()
        except BaseException:
            self._give_back()
            raise

    def _do_return_conn(self, record: ConnectionPoolEntry) -> None:
        self._give_back()

    def _give_back(self) -> None:
        with self._turn:
            self._held -= 1
            if self._held <= 0:
                self._holder, self._held = None, 0
                self._turn.notify_all()


# ── text PostgreSQL can store ─────────────────────────────────────────────────────────────────────


class NotStorable(ValueError):
    """A value the database cannot store; the message says which and why."""


def check_storable(value: str, what: str) -> str:
    """``value`` if PostgreSQL can store it as text; NotStorable naming ``what`` when it holds U+0000."""
    if "\x00" in value:
        at = value.index("\x00")
        raise NotStorable(
            f"{what} contains a NUL character (U+0000) at position {at}, which the database cannot store as text: "
            "remove it and try again"
        )
    return value


def guard_text(engine: Engine) -> Engine:
    """On PostgreSQL, refuse every statement whose parameters hold a NUL, before it is sent (returns the engine)."""
    if engine.dialect.name != "postgresql":
        return engine

    @event.listens_for(engine, "before_cursor_execute")
    def _check(_conn: Any, _cursor: Any, _statement: str, parameters: Any, _context: Any, _many: bool) -> None:
        for value in _strings(parameters):
            check_storable(value, "a text bound for the database")

    return engine


def _strings(parameters: Any) -> Iterable[str]:
    rows = parameters if isinstance(parameters, (list, tuple)) else [parameters]
    for row in rows:
        values = row.values() if isinstance(row, dict) else row if isinstance(row, (list, tuple)) else [row]
        for value in values:
            if isinstance(value, str):
                yield value


# ── outages: waited out, or one sentence ──────────────────────────────────────────────────────────


FIRST_PAUSE_S = 0.1
MAX_PAUSE_S = 2.0
_FOR_GOOD = ("readonly", "read-only", "read only", "disk is full", "no space left")
"""Words of an error that waiting does not cure."""


class DatabaseUnavailable(RuntimeError):
    """The database could not be written for long enough that the run stopped; the message says why, in one line."""


def transient(exc: BaseException) -> bool:
    """True for a database failure that may pass: a lock, a dropped or refused connection, a restarting server."""
    if not isinstance(exc, (OperationalError, DBAPIError)):
        return False
    if isinstance(exc, DBAPIError) and not isinstance(exc, OperationalError) and not exc.connection_invalidated:
        return False
    return not any(word in problem(exc).lower() for word in _FOR_GOOD)


def problem(exc: BaseException) -> str:
    """The database's own words for what went wrong, on one line, without SQLAlchemy's wrapping."""
    original = getattr(exc, "orig", None) or exc
    first = (str(original).strip().splitlines() or [type(original).__name__])[0]
    return first[:200]


def with_retry(write: Callable[[], T], what: str, *, budget: float | None = None) -> T:
    """``write()``, repeated with backoff while the database fails transiently, at most ``budget`` seconds in all
    (``SPARROW_DB_RETRY_S``, 30 by default); past it, or at once for a lasting failure, DatabaseUnavailable."""
    budget = env_settings().sparrow_db_retry_s if budget is None else budget
    started, pause = time.monotonic(), FIRST_PAUSE_S
    while True:
        try:
            return write()
        except (OperationalError, DBAPIError) as exc:
            waited = time.monotonic() - started
            if not transient(exc) or waited + pause > budget:
                after = f" (retried for {waited:.0f} s)" if waited >= 1 else ""
                raise DatabaseUnavailable(f"the database could not record {what}{after}: {problem(exc)}") from None
            log.warning("database write failed (%s); retrying in %.1f s", problem(exc), pause)
            time.sleep(pause)
            pause = min(pause * 2, MAX_PAUSE_S)


def read_only_refusal(context: Any) -> DatabaseUnavailable | None:
    """A write refused because the database is read-only, as one sentence (an engine's ``handle_error`` hook).

    Every write of every store call fails the same way on such a database (a ``?mode=ro`` SQLite file, a read-only
    mount, a PostgreSQL standby or ``default_transaction_read_only``): the caller gets ``DatabaseUnavailable``
    naming it, never SQLAlchemy's wrapped ``OperationalError``. Nothing was written.
    """
    exc = context.sqlalchemy_exception or context.original_exception
    words = problem(exc)
    if not any(word in words.lower() for word in _FOR_GOOD[:3]):
        return None
    return DatabaseUnavailable(f"the database is read-only, so nothing can be recorded: {words}")


# ── the schema and its migrations ─────────────────────────────────────────────────────────────────


HEAD_REVISION = "0009_baseline"
"""The newest revision in ``migrations/`` (a test holds it to Alembic's own head): a database at it opens without
importing Alembic, which takes about half a second."""
BASELINE = "0009_baseline"
"""The revision that makes the whole schema of Sparrow 0.1.0 on an empty database."""
OLD_HEAD = "0008_experiment_judge"
"""The head of the pre-release revisions the baseline replaced: a database at it holds exactly the baseline's schema,
so it is current as it is (``db upgrade``, or the next migration, records it under the baseline's name). Revision
names sort in order, so one below it is an earlier pre-release revision, which this build cannot upgrade."""
VERSION_TABLE = "sparrow_alembic_version"
"""Where Alembic records the revision (not ``alembic_version``, so another app's migrations may share the database)."""
BEFORE_MIGRATIONS = "sparrow_schema"
"""The table that marked Sparrow's databases before there were migrations (pre-release builds only)."""
LOCK_KEY = 0x5370_6172_726F_7731
"""The PostgreSQL advisory lock held while migrating ("Sparrow1")."""


class SchemaVersionError(RuntimeError):
    """The database was written by a newer (or a pre-release) Sparrow, or holds tables Sparrow did not create."""


@dataclass(frozen=True)
class SchemaState:
    """What a database holds of Sparrow's schema."""

    revision: str | None
    """The Alembic revision it is at; None on a database no migration ran on."""
    foreign: tuple[str, ...] = ()
    """Tables with Sparrow's names in a database Sparrow never marked."""
    fts_missing: bool = False
    """SQLite only: ``memories`` exists but its full-text index was lost (it is rebuilt from the rows)."""
    before_migrations: bool = False
    """It has ``sparrow_schema`` but no revision: made by a pre-release build from before migrations."""

    @property
    def current(self) -> str | None:
        """The revision under this build's name for it (the old head is the baseline)."""
        return BASELINE if self.revision == OLD_HEAD else self.revision

    @property
    def at_head(self) -> bool:
        """True when no migration is due."""
        return self.current == head_revision() and not self.fts_missing


def head_revision() -> str:
    """The newest revision this build knows."""
    return HEAD_REVISION


def known_revisions() -> list[str]:
    """Every revision of this build, oldest first."""
    return [r.revision for r in reversed(list(script_directory().walk_revisions()))]


def read_state(conn: Connection) -> SchemaState:
    """What ``conn``'s database holds (read only)."""
    names = set(inspect(conn).get_table_names())
    revision = (
        conn.execute(text(f"SELECT version_num FROM {VERSION_TABLE}")).scalar() if VERSION_TABLE in names else None
    )
    before_migrations = revision is None and BEFORE_MIGRATIONS in names
    marked = revision is not None or before_migrations
    foreign = () if marked else tuple(sorted(names & {t.name for t in TABLES}))
    fts_missing = conn.dialect.name == "sqlite" and MemoryRow.__tablename__ in names and not has_fts(conn)
    return SchemaState(revision, foreign, fts_missing, before_migrations)


def check(state: SchemaState, url: URL) -> None:
    """Refuse a database written by a newer or a pre-release Sparrow, or one whose tables Sparrow did not create."""
    where = url.render_as_string(hide_password=True)
    if state.foreign:
        raise SchemaVersionError(
            f"the database already has table(s) {', '.join(state.foreign)} that Sparrow did not create; "
            "set DATABASE_URL to another database"
        )
    revision = state.revision
    if state.before_migrations or (revision is not None and revision < OLD_HEAD):
        made = f"schema revision {revision}" if revision else "before migrations"
        raise SchemaVersionError(
            f"the database {where} was made by a pre-release Sparrow ({made}), which this build cannot upgrade: "
            f"open it once with a Sparrow from before 0.1.0 (it upgrades it to {OLD_HEAD}), or set DATABASE_URL to "
            "another database."
        )
    if state.current not in (None, HEAD_REVISION) and revision not in known_revisions():
        raise SchemaVersionError(
            f"the database {where} was written by a newer Sparrow (schema revision {revision}); this build "
            f"reads schema revisions up to {head_revision()}. Upgrade Sparrow, or set DATABASE_URL to another database."
        )


def ensure_schema(engine: Engine, locked: Engine) -> None:
    """Bring ``engine``'s database to the head revision if it is behind (``locked``: its write-locking twin)."""
    with engine.connect() as conn:
        state = read_state(conn)
    check(state, engine.url)
    if not state.at_head:
        upgrade(locked)


def upgrade(locked: Engine) -> tuple[SchemaState, str]:
    """Upgrade to the head revision under the migration lock, in one transaction; (state before, head).

    A database at the old head is first recorded under the baseline's name: its schema is the baseline's already.
    """
    with locked.begin() as conn:
        if conn.dialect.name == "postgresql":
            conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": LOCK_KEY})
        before = read_state(conn)  # again: another process may have migrated while this one waited
        check(before, locked.url)
        if before.revision == OLD_HEAD:
            conn.execute(text(f"UPDATE {VERSION_TABLE} SET version_num = :baseline"), {"baseline": BASELINE})
        if before.current != head_revision():
            upgrade_to_head(conn)
        if before.fts_missing:
            create_sqlite_fts(conn)
    return before, head_revision()


SCRIPT_LOCATION = "agent_core.store:migrations"


def alembic_config() -> Config:
    """An Alembic configuration pointing at the revisions shipped in ``migrations/``."""
    from alembic.config import Config  # Alembic takes half a second to import: only when a migration is due

    config = Config()
    config.set_main_option("script_location", SCRIPT_LOCATION)
    return config


@functools.cache
def script_directory() -> ScriptDirectory:
    """The revisions shipped with this build."""
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(alembic_config())


def alembic_head() -> str:
    """The newest revision, as Alembic finds it from the revision files."""
    head = script_directory().get_current_head()
    assert head is not None, "the migrations folder has no revision"
    return head


def upgrade_to_head(conn: Connection) -> None:
    """Run the revisions from the database's own up to the head, on ``conn`` (in its transaction)."""
    from alembic import command

    config = alembic_config()
    config.attributes["connection"] = conn
    command.upgrade(config, "head")
