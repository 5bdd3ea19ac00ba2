"""Engine setup: where the data lives, SQLite pragmas, and the schema version guard."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from sqlalchemy import text

from agent_core.store import SchemaVersionError, SessionStore, create_db_engine, database_url
from agent_core.store.database import HEAD_REVISION, VERSION_TABLE


def test_default_url_is_a_file_under_the_data_dir(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("SPARROW_DATA_DIR", str(tmp_path / "nested" / "data"))
    assert database_url() == f"sqlite:///{tmp_path / 'nested' / 'data' / 'sparrow.db'}"
    store = SessionStore.open()
    store.sessions.create()
    store.close()
    assert (tmp_path / "nested" / "data" / "sparrow.db").is_file()


def test_database_url_wins_over_the_data_dir(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'elsewhere.db'}")
    assert database_url() == f"sqlite:///{tmp_path / 'elsewhere.db'}"
    assert database_url("sqlite://") == "sqlite://"
    SessionStore.open().close()
    assert (tmp_path / "elsewhere.db").is_file()


def test_sqlite_files_use_wal_foreign_keys_and_a_busy_timeout(db_file: Path) -> None:
    engine = create_db_engine(f"sqlite:///{db_file}")
    with engine.connect() as conn:
        pragmas = {name: conn.execute(text(f"PRAGMA {name}")).scalar() for name in ("journal_mode", "foreign_keys")}
        pragmas["busy_timeout"] = conn.execute(text("PRAGMA busy_timeout")).scalar()
    engine.dispose()
    assert pragmas == {"journal_mode": "wal", "foreign_keys": 1, "busy_timeout": 15000}


def test_the_schema_version_is_recorded_and_reopening_keeps_the_data(db_file: Path) -> None:
    store = SessionStore.open(f"sqlite:///{db_file}")
    session = store.sessions.create(title="kept")
    store.close()
    with sqlite3.connect(db_file) as conn:
        assert conn.execute(f"SELECT version_num FROM {VERSION_TABLE}").fetchall() == [(HEAD_REVISION,)]
    again = SessionStore.open(f"sqlite:///{db_file}")
    assert again.sessions.get(session.id).title == "kept"
    again.close()


def test_a_newer_schema_is_refused_and_left_untouched(db_file: Path) -> None:
    SessionStore.open(f"sqlite:///{db_file}").close()
    with sqlite3.connect(db_file) as conn:
        conn.execute(f"UPDATE {VERSION_TABLE} SET version_num = '9999_future'")
        conn.execute("DROP TABLE snapshots")  # as if a newer Sparrow had reshaped its tables
    before = db_file.read_bytes()
    with pytest.raises(SchemaVersionError) as info:
        SessionStore.open(f"sqlite:///{db_file}")
    message = str(info.value)
    assert "schema revision 9999_future" in message and f"reads schema revisions up to {HEAD_REVISION}" in message
    assert "DATABASE_URL" in message
    with sqlite3.connect(db_file) as conn:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert "snapshots" not in tables
    assert db_file.read_bytes() == before


def test_a_database_with_foreign_tables_of_the_same_names_is_refused(db_file: Path) -> None:
    db_file.parent.mkdir(parents=True)
    with sqlite3.connect(db_file) as conn:
        conn.execute("CREATE TABLE sessions (user TEXT, cookie TEXT)")
    with pytest.raises(SchemaVersionError, match="sessions that Sparrow did not create"):
        SessionStore.open(f"sqlite:///{db_file}")
