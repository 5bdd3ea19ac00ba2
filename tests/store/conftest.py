"""Fixtures for the store tests: an in-memory store, and a store on a real SQLite file."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_core.store import SessionStore


@pytest.fixture
def store(db_url: str) -> Iterator[SessionStore]:
    """A store on each backend: an in-memory SQLite database, or a fresh PostgreSQL database."""
    s = SessionStore.open(db_url)
    yield s
    s.close()


@pytest.fixture
def db_file(tmp_path: Path) -> Path:
    """Path of a (not yet created) SQLite database file."""
    return tmp_path / "db" / "sparrow.db"


@pytest.fixture
def file_store(file_db_url: str) -> Iterator[SessionStore]:
    """A store several processes can share: a real SQLite file (WAL mode), or PostgreSQL."""
    s = SessionStore.open(file_db_url)
    yield s
    s.close()
