"""The record shapes: tables, API views and file records share their field declarations, and keep their order."""

from agent_core.store import SessionInfo, SnapshotInfo
from agent_core.store.files import FileSession, FileSnapshot
from agent_core.store.tables import (
    EventRow,
    SessionDump,
    SessionRecord,
    SessionRow,
    SnapshotRecord,
    SnapshotRow,
    StoredEvent,
)


def columns(row: type) -> list[str]:
    return [column.name for column in row.__table__.columns]  # type: ignore[attr-defined]


def test_table_columns_keep_their_historic_order() -> None:
    assert columns(SessionRow) == [
        "id", "title", "created_at", "updated_at", "last_seq", "config", "parent_id", "forked_from", "owner",
        "imported_at",
    ]  # fmt: skip
    assert columns(SnapshotRow) == ["id", "session_id", "name", "created_at", "upto_seq", "title", "config", "owner"]
    assert columns(EventRow) == ["session_id", *StoredEvent._fields]


def test_views_hold_exactly_the_columns_of_their_table() -> None:
    assert list(SessionInfo.model_fields) == columns(SessionRow)
    assert list(SnapshotInfo.model_fields) == columns(SnapshotRow)


def test_file_records_are_the_tables_without_store_bookkeeping() -> None:
    assert list(FileSession.model_fields) == list(SessionRecord.model_fields)
    assert list(FileSession.model_fields) == [
        "id", "title", "created_at", "updated_at", "parent_id", "forked_from", "config"
    ]  # fmt: skip
    assert set(columns(SessionRow)) - set(SessionRecord.model_fields) == {
        "last_seq",
        "owner",
        "imported_at",
    }  # owner: an imported file becomes the importer's; imported_at: set where it is imported
    assert list(FileSnapshot.model_fields) == list(SnapshotRecord.model_fields)
    assert set(columns(SnapshotRow)) - set(SnapshotRecord.model_fields) == {"session_id", "owner"}
    assert list(SessionDump.model_fields) == [*SessionRecord.model_fields, "events", "snapshots"]


def test_views_and_file_records_declare_no_field_of_their_own_but_the_display_title() -> None:
    for shapes in ((SessionRow, SessionInfo, FileSession, SessionDump), (SnapshotRow, SnapshotInfo, FileSnapshot)):
        table, *views = shapes
        for view in views:
            for name, field in view.model_fields.items():
                if name in table.model_fields and (view, name) != (SessionInfo, "title"):
                    assert field.annotation == table.model_fields[name].annotation, (view, name)
                    assert field.metadata == table.model_fields[name].metadata, (view, name)
    assert SessionInfo.model_fields["title"].annotation is str  # never None: "New session" until titled
