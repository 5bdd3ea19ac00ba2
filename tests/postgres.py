"""A real PostgreSQL for the tests: a throwaway cluster per test session, a fresh database per test.

Registered from tests/conftest.py. ``db_url`` and ``file_db_url`` are parametrised over both backends
(``[sqlite]`` and ``[postgresql]`` in test ids, so ``-k sqlite`` runs one of them); the cluster starts only
when a PostgreSQL test runs, and those tests are skipped, with the reason, when the server binaries or the
driver are missing. Each test gets an empty database with the schema: a shared one, its rows truncated and
its stray connections closed between tests (a new database costs ~0.3 s), or new ones when it asks for more
or for an empty one.
"""

from __future__ import annotations

import importlib.util
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, text

from agent_core.testing.pg_cluster import SUPERUSER, Cluster, find_bin_dir

BACKENDS = ("sqlite", "postgresql")
TEMPLATE = "sparrow_template"
SHARED = "sparrow_shared"


_FINGERPRINT = """
SELECT md5(string_agg(table_name || '.' || column_name || ':' || data_type, ',' ORDER BY table_name, column_name))
       || (SELECT string_agg(version_num, ',') FROM sparrow_alembic_version)
FROM information_schema.columns WHERE table_schema = 'public'
"""
_DATA_TABLES = "SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename NOT LIKE 'sparrow_%'"


class Databases:
    """Hands out databases of one cluster: a shared one emptied between tests, or new ones (dropped after)."""

    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster
        self._admin = _connect(cluster, "postgres")
        self._template_ready = False
        self._shared: Any = None  # a connection to the shared database, once it exists
        self._fingerprint = ""

    def create(self, *, empty: bool = False) -> str:
        """A new database (empty, or with Sparrow's schema); returns its URL."""
        name = f"t_{uuid.uuid4().hex[:12]}"
        template = "template0" if empty else self._template()
        self._admin.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
        return self.cluster.url(name)

    def drop(self, url: str) -> None:
        """Drop a database made by ``create``, closing whatever connections it still has."""
        name = url.rsplit("/", 1)[1]
        self._admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def shared(self) -> str:
        """The shared database with Sparrow's schema and no rows (faster than a new database per test).

        Connections a previous test left open are closed first; if a test altered the schema itself, the
        database is made anew.
        """
        if self._shared is not None and not self._reset():
            self._shared.close()
            self._shared = None
            self.drop(self.cluster.url(SHARED))
        if self._shared is None:
            self._admin.execute(f'CREATE DATABASE "{SHARED}" TEMPLATE "{self._template()}"')
            self._shared = _connect(self.cluster, SHARED)
            self._fingerprint = self._shared.execute(_FINGERPRINT).fetchone()[0]
        return self.cluster.url(SHARED)

    def _reset(self) -> bool:
        try:
            self._shared.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
            if self._shared.execute(_FINGERPRINT).fetchone()[0] != self._fingerprint:
                return False
            tables = ", ".join(f'"{row[0]}"' for row in self._shared.execute(_DATA_TABLES))
            self._shared.execute(f"TRUNCATE {tables} RESTART IDENTITY CASCADE")
            return True
        except Exception:  # the schema was damaged on purpose by the last test
            return False

    def close(self) -> None:
        """Close the admin connections."""
        if self._shared is not None:
            self._shared.close()
        self._admin.close()

    def _template(self) -> str:
        if not self._template_ready:
            from agent_core.store import SessionStore

            self._admin.execute(f'CREATE DATABASE "{TEMPLATE}" TEMPLATE template0')
            SessionStore.open(self.cluster.url(TEMPLATE)).close()
            self._template_ready = True
        return TEMPLATE


def _connect(cluster: Cluster, database: str) -> Any:
    import psycopg  # the optional driver: only imported once PostgreSQL tests are known to run

    return psycopg.connect(f"host=127.0.0.1 port={cluster.port} user={SUPERUSER} dbname={database}", autocommit=True)


@pytest.fixture(scope="session")
def pg_databases() -> Iterator[Databases]:
    """The test session's PostgreSQL cluster (started on first use, stopped at the end)."""
    bin_dir = find_bin_dir()
    if bin_dir is None:
        pytest.skip("PostgreSQL server binaries (initdb, pg_ctl) not found: apt-get install postgresql")
    if importlib.util.find_spec("psycopg") is None:
        pytest.skip("the PostgreSQL driver is missing: pip install -e '.[postgres]'")
    cluster = Cluster(bin_dir).start()
    databases = Databases(cluster)
    try:
        yield databases
    finally:
        databases.close()
        cluster.stop()


@pytest.fixture
def pg_database(pg_databases: Databases) -> Iterator[Callable[..., str]]:
    """A factory of fresh PostgreSQL databases (``empty=True`` for one without the schema), dropped after the test.

    The first database with the schema is the shared one, emptied for this test; others are created.
    """
    made: list[str] = []
    shared_used = False

    def make(*, empty: bool = False) -> str:
        nonlocal shared_used
        if not empty and not shared_used:
            shared_used = True
            return pg_databases.shared()
        made.append(pg_databases.create(empty=empty))
        return made[-1]

    yield make
    for url in made:
        pg_databases.drop(url)


@pytest.fixture
def pg_url(pg_database: Callable[..., str]) -> str:
    """URL of a fresh PostgreSQL database holding Sparrow's schema."""
    return pg_database()


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    """The database backend a test runs on: ``sqlite`` or ``postgresql``."""
    return str(request.param)


@pytest.fixture
def new_db_url(backend: str, request: pytest.FixtureRequest, tmp_path: Path) -> Callable[..., str]:
    """A factory of fresh databases on the test's backend: ``new_db_url(memory=..., empty=...)`` gives a URL.

    On SQLite: an in-memory database when ``memory`` is true, else a new file (not yet created); on PostgreSQL:
    a new database, holding the schema unless ``empty`` is true.
    """
    names = iter(range(1_000_000))

    def make(*, memory: bool = False, empty: bool = False) -> str:
        if backend == "postgresql":
            return request.getfixturevalue("pg_database")(empty=empty)
        if memory:
            return "sqlite://"
        number = next(names)
        return f"sqlite:///{tmp_path / 'db' / (f'sparrow{number}.db' if number else 'sparrow.db')}"

    return make


@pytest.fixture
def db_url(new_db_url: Callable[..., str]) -> str:
    """A fresh database on each backend: in-memory SQLite, or a new PostgreSQL database."""
    return new_db_url(memory=True)


@pytest.fixture
def file_db_url(new_db_url: Callable[..., str]) -> str:
    """A fresh database that several processes can open: an SQLite file (not yet created) or PostgreSQL."""
    return new_db_url()


@pytest.fixture
def empty_db_url(new_db_url: Callable[..., str]) -> str:
    """A database without any table yet, on each backend (for schema creation and migration tests)."""
    return new_db_url(empty=True)


def execute(url: str, *statements: str) -> None:
    """Run SQL statements on a database, outside Sparrow's engine setup (to damage or age it on purpose)."""
    engine = create_engine(url)
    try:
        with engine.begin() as conn:
            for statement in statements:
                conn.execute(text(statement))
    finally:
        engine.dispose()
