"""Fixtures for the store tests: an in-memory store, and a store on a real SQLite file."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_core.store import SessionStore


@pytest.fixture
def store() -> Iterator[SessionStore]:
    """A store on an in-memory SQLite database."""
    s = SessionStore.open("sqlite://")
    yield s
    s.close()


@pytest.fixture
def db_file(tmp_path: Path) -> Path:
    """Path of a (not yet created) SQLite database file."""
    return tmp_path / "db" / "sparrow.db"


@pytest.fixture
def file_store(db_file: Path) -> Iterator[SessionStore]:
    """A store on a real SQLite file (WAL mode)."""
    s = SessionStore.open(f"sqlite:///{db_file}")
    yield s
    s.close()
