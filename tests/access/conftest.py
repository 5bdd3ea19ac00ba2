"""The fixture the access tests share: a store on each backend (SQLite in memory, PostgreSQL), closed after."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from agent_core.store import SessionStore


@pytest.fixture
def store(db_url: str) -> Iterator[SessionStore]:
    """A store on ``db_url`` (each backend in turn), closed after the test."""
    opened = SessionStore.open(db_url)
    yield opened
    opened.close()
