"""The Sessions page asks before deleting a session, says it did where the user looks, and marks imported copies."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from agent_core.examples import open_example
from agent_core.formatting import format_timestamp
from agent_core.store import SessionStore, export_session, import_session

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def test_delete_asks_for_confirmation_first(store: SessionStore) -> None:
    kept = store.sessions.create().id
    at = AppTest.from_file(APP, default_timeout=30)
    at.switch_page("pages/sessions.py").run()
    assert not at.exception, at.exception
    assert any("cannot be undone" in w.value for w in at.warning)  # inside the Delete popover, before any click
    assert store.sessions.get(kept).id == kept  # drawing the page deleted nothing
    at.button(key=f"delete_{kept}").click().run()
    assert [s.value for s in at.success] == ["Session deleted."]
    assert store.sessions.list() == []
    store.close()


BADGE = ":gray-badge[:material/file_download: Imported copy]"


def cards(at: AppTest) -> dict[str, list[str]]:
    """The Sessions page's session cards: each title, with the markdown drawn in its card."""
    found = {}
    for block in at.main.children.values():
        values = [m.value for m in block.markdown] if block.type == "flex_container" else []
        if values:
            found[values[0].strip("*")] = values
    return found


def test_an_imported_copy_is_marked_and_the_users_own_session_is_not(store: SessionStore) -> None:
    mine = store.sessions.create(title="mine")
    copy = import_session(store, export_session(store, mine.id))
    store.sessions.rename(copy.id, "copy")
    open_example(store, "dates")  # imported too, but listed apart under its own banner: no second mark
    at = AppTest.from_file(APP, default_timeout=30)
    at.switch_page("pages/sessions.py").run()
    assert not at.exception, at.exception
    listed = cards(at)
    assert listed["mine"] == ["**mine**"] and listed["copy"] == ["**copy**", BADGE]
    [badge] = [m for m in at.markdown if m.value == BADGE]
    when = format_timestamp(store.sessions.get(copy.id).imported_at)
    assert badge.proto.help == f"Imported from a session file on {when}"
    at.segmented_control(key="lang_choice").set_value("zh").run()
    [badge] = [m for m in at.markdown if "badge" in m.value]
    assert (badge.value, badge.proto.help) == (
        BADGE.replace("Imported copy", "导入的副本"),
        f"于 {when} 从会话文件导入",
    )
    store.close()


def test_the_chat_page_marks_an_open_imported_copy_but_not_an_example(store: SessionStore) -> None:
    mine = store.sessions.create(title="mine")
    copy = import_session(store, export_session(store, mine.id))
    example = open_example(store, "dates")  # imported through the same path: its banner says what it is
    for session_id, marked in ((copy.id, True), (mine.id, False), (example.id, False)):
        at = AppTest.from_file(APP, default_timeout=30)
        at.query_params["session"] = session_id
        at.run()
        assert not at.exception, at.exception
        assert (BADGE in [m.value for m in at.main.markdown]) is marked
    store.close()
