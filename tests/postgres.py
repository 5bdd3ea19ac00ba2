"""A real PostgreSQL for the tests: a throwaway cluster per test session, a fresh database per test.

Registered from tests/conftest.py. ``db_url`` and ``file_db_url`` are parametrised over both backends
(``[sqlite]`` and ``[postgresql]`` in test ids, so ``-k sqlite`` runs one of them); the cluster starts only
when a PostgreSQL test runs, and those tests are skipped, with the reason, when the server binaries or the
driver are missing. Each test gets its own database, copied from a template that already holds the schema.
"""

from __future__ import annotations

import importlib.util
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from agent_core.testing.postgres import Cluster, find_bin_dir

BACKENDS = ("sqlite", "postgresql")
TEMPLATE = "sparrow_template"


class Databases:
    """Creates and drops the per-test databases of one cluster."""

    def __init__(self, cluster: Cluster) -> None:
        import psycopg  # the optional driver: only imported once PostgreSQL tests are known to run

        self.cluster = cluster
        self._admin = psycopg.connect(
            f"host=127.0.0.1 port={cluster.port} user=sparrow dbname=postgres", autocommit=True
        )
        self._template_ready = False

    def create(self, *, empty: bool = False) -> str:
        """A new database (empty, or with Sparrow's schema); returns its URL."""
        name = f"t_{uuid.uuid4().hex[:12]}"
        template = "template0" if empty else self._template()
        self._admin.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}" STRATEGY FILE_COPY')
        return self.cluster.url(name)

    def drop(self, url: str) -> None:
        """Drop a database made by ``create``, closing whatever connections it still has."""
        name = url.rsplit("/", 1)[1]
        self._admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def close(self) -> None:
        """Close the admin connection."""
        self._admin.close()

    def _template(self) -> str:
        if not self._template_ready:
            from agent_core.store import SessionStore

            self._admin.execute(f'CREATE DATABASE "{TEMPLATE}" TEMPLATE template0')
            SessionStore.open(self.cluster.url(TEMPLATE)).close()
            self._template_ready = True
        return TEMPLATE


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
    """A factory of fresh PostgreSQL databases (``empty=True`` for one without the schema), dropped after the test."""
    made: list[str] = []

    def make(*, empty: bool = False) -> str:
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
