"""The demo pages under attack: hostile sessions and sessions at every import limit in Present, Compare, the
examples list and banner, and the HTML report — no fetch, no crash."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from agent_core.examples import EXAMPLE_KEY
from agent_core.store import SessionConfig, SessionStore, import_session
from agent_core.trace_export import to_html
from agent_core.views.transcript import Transcript
from tests.app.test_hostile_content import IMAGE, assert_no_fetch, extreme_document, hostile_session

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def first_turn(store: SessionStore, session_id: str) -> str:
    return f"{session_id}:{Transcript.from_events(store.log.events(session_id)).turns[0].run_id}"


def demo_pages(session_id: str, turn: str) -> list[AppTest]:
    """The app on Present (two frames in) and on Compare (the turn against itself), after each has run."""
    present = AppTest.from_file(APP, default_timeout=30)
    present.query_params.update(session=session_id, present="1")
    present.run()
    assert not present.exception, present.exception
    present.button(key="present_last").click()
    present.run()
    compare = AppTest.from_file(APP, default_timeout=30)
    compare.run()
    compare.switch_page("pages/compare.py")
    compare.query_params.update(left=turn, right=turn)
    compare.run()
    return [present, compare]


def test_hostile_sessions_never_fetch_on_present_and_compare(store: SessionStore) -> None:
    session_id = hostile_session(store)
    for at in demo_pages(session_id, first_turn(store, session_id)):
        assert not at.exception, at.exception
        assert "evil.example" in "\n".join(m.value for m in [*at.markdown, *at.caption, *at.code, *at.text])
        assert_no_fetch(at)


def test_a_hostile_example_name_is_plain_in_the_banner_and_the_list(store: SessionStore) -> None:
    session = store.sessions.create(SessionConfig(settings={EXAMPLE_KEY: IMAGE}), title=f"Example {IMAGE}")
    at = AppTest.from_file(APP, default_timeout=30)
    at.query_params["session"] = session.id
    at.run()
    assert any("http\\://evil" in i.value for i in at.info)  # shown, escaped
    assert_no_fetch(at)
    at.switch_page("pages/sessions.py").run()
    assert not at.exception, at.exception
    for expander in at.expander:
        expander.proto.expanded = True
    assert "http\\://evil" in "\n".join(m.value for m in at.markdown)
    assert_no_fetch(at)


def test_a_session_at_every_import_limit_presents_compares_and_reports(store: SessionStore) -> None:
    info = import_session(store, extreme_document())
    for at in demo_pages(info.id, first_turn(store, info.id)):
        assert not at.exception, at.exception
    page = to_html(store.log.events(info.id), title=info.title)
    assert page.startswith("<!DOCTYPE html>") and "<img" not in page
