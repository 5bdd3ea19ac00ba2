"""Fixtures for the memory tests: a session store with its memory store, in memory or on a real SQLite file."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_core.longterm import MemoryStore
from agent_core.store import SessionStore


@pytest.fixture
def store(db_url: str) -> Iterator[SessionStore]:
    """A session store on each backend: an in-memory SQLite database, or a fresh PostgreSQL database."""
    s = SessionStore.open(db_url)
    yield s
    s.close()


@pytest.fixture
def memories(store: SessionStore) -> MemoryStore:
    """The memory store in the same database as ``store``."""
    return MemoryStore(store.engine)


@pytest.fixture
def db_file(tmp_path: Path) -> Path:
    """Path of a (not yet created) SQLite database file."""
    return tmp_path / "db" / "sparrow.db"
