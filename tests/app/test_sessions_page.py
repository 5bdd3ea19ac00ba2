"""The Sessions page asks before deleting a session, and says it did where the user looks."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from agent_core.store import SessionStore

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def test_delete_asks_for_confirmation_first() -> None:
    store = SessionStore.open()
    kept = store.create_session().id
    at = AppTest.from_file(APP, default_timeout=30)
    at.switch_page("pages/sessions.py").run()
    assert not at.exception, at.exception
    assert any("cannot be undone" in w.value for w in at.warning)  # inside the Delete popover, before any click
    assert store.get_session(kept).id == kept  # drawing the page deleted nothing
    at.button(key=f"delete_{kept}").click().run()
    assert [s.value for s in at.success] == ["Session deleted."]
    assert store.list_sessions() == []
    store.close()
