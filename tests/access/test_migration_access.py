"""Migration 0004 (owners, runs, share links): down and up again on both backends, losing no event."""

from __future__ import annotations

from sqlalchemy import inspect, text

from agent_core.store import Actor, SessionStore
from tests.store.helpers import arithmetic_agent, downgraded, persisted, run

BEFORE = "0003_memory_trigram_index"


def test_the_owner_migration_goes_down_and_up_without_losing_events(file_db_url: str) -> None:
    store = SessionStore.open(file_db_url)
    alice = store.acting_as(Actor.user("alice"))
    session = alice.sessions.create()
    events = run(alice, session.id, arithmetic_agent(), "What is 6*7?")
    alice.shares.create(session.id)
    store.close()
    engine = downgraded(file_db_url, BEFORE)
    with engine.connect() as conn:
        schema = inspect(conn)
        assert "owner" not in {c["name"] for c in schema.get_columns("sessions")}
        assert not {"runs", "share_links"} & set(schema.get_table_names())
        assert conn.execute(text("SELECT count(*) FROM events")).scalar() == len(persisted(events))
    engine.dispose()
    reopened = SessionStore.open(file_db_url)  # upgraded again on open: the session is unowned now
    assert reopened.sessions.get(session.id).owner is None
    assert reopened.log.events(session.id) == persisted(events)
    reopened.close()
