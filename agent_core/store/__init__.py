"""Durable sessions: an append-only event log per session on SQLModel, snapshots, forks, session files.

Typical use (the app and the CLI do this)::

    store = SessionStore.open()                      # $DATABASE_URL or ./data/sparrow.db
    session = store.sessions.create(config_from_agent(agent))
    for event in run_in_session(store, session.id, agent, "What is 6*7?"):
        ...                                          # every event is already saved when you see it
    agent = agent_for_session(store, session.id, model)     # later: continue with its memory
    data = export_session(store, session.id)                # bytes of a .sparrow.json file
    copy = import_session(store, data)                       # a new session, validated, all or nothing
"""

from agent_core.store.access import (
    LOCAL_ADMIN,
    Actor,
    NotYours,
    ReadOnly,
    SessionNotFound,
    SnapshotNotFound,
    StoreAccess,
)
from agent_core.store.database import SchemaVersionError, create_db_engine, database_url
from agent_core.store.files import (
    FORMAT,
    MAX_IMPORT_BYTES,
    VERSION,
    SessionFileError,
    export_filename,
    export_session,
    import_session,
)
from agent_core.store.sessions import SessionStore, record_events
from agent_core.store.shares import ShareGrant, ShareLinkInfo, ShareLinkInvalid
from agent_core.store.tables import InterruptedRun, SessionConfig, SessionInfo, SnapshotInfo, title_from_question

__all__ = [
    "FORMAT",
    "LOCAL_ADMIN",
    "MAX_IMPORT_BYTES",
    "VERSION",
    "Actor",
    "InterruptedRun",
    "NotYours",
    "ReadOnly",
    "SchemaVersionError",
    "SessionConfig",
    "SessionFileError",
    "SessionInfo",
    "SessionNotFound",
    "SessionStore",
    "ShareGrant",
    "ShareLinkInfo",
    "ShareLinkInvalid",
    "SnapshotInfo",
    "SnapshotNotFound",
    "StoreAccess",
    "create_db_engine",
    "database_url",
    "export_filename",
    "export_session",
    "import_session",
    "record_events",
    "title_from_question",
]
