"""Presentation mode in AppTest: a shared link opens it, the step buttons move one frame, Replay offers it."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from agent_core.examples import example, open_example
from agent_core.guards.untrusted import plain
from agent_core.store import SessionStore
from sparrow_ui.playback import replay
from sparrow_ui.translations.strings_traces import STRINGS as TRACES_STRINGS

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def run(at: AppTest) -> AppTest:
    at.run()
    assert not at.exception, at.exception
    return at


def progress(at: AppTest) -> str:
    return at.get("progress")[0].proto.text


def shared_link(session_id: str) -> AppTest:
    """The app opened at ``/?session=ID&present=1``."""
    at = AppTest.from_file(APP, default_timeout=30)
    at.query_params["session"] = session_id
    at.query_params["present"] = "1"
    return run(at)


def test_a_shared_link_opens_presentation_mode_and_the_buttons_step(store: SessionStore) -> None:
    session = open_example(store, "dates")
    at = shared_link(session.id)
    frames = len(replay.frames(replay.replay_events(store.log.events(session.id))))
    assert f"**{plain(example('dates').title)}**" in [m.value for m in at.markdown]
    assert progress(at).startswith(f"1 of {frames} · ")
    keys = {b.key: b for b in at.button}
    assert {"present_next", "present_previous", "present_first", "present_last", "present_exit"} <= set(keys)
    assert keys["present_previous"].disabled and not keys["present_next"].disabled
    at.button(key="present_next").click()
    run(at)
    assert progress(at).startswith(f"2 of {frames} · ")
    at.button(key="present_space").click()
    run(at)
    at.button(key="present_pageup").click()
    run(at)
    assert progress(at).startswith(f"2 of {frames} · ")
    at.button(key="present_last").click()
    run(at)
    assert progress(at).startswith(f"{frames} of {frames} · ") and at.button(key="present_next").disabled


def test_presenting_without_a_session_says_what_to_do() -> None:
    at = shared_link("ses_missing")
    assert [i.value for i in at.info][-1].startswith("Open a session with at least one run")


def test_the_replay_tab_offers_presentation_mode(store: SessionStore) -> None:
    session = open_example(store, "parallel")
    at = AppTest.from_file(APP, default_timeout=30)
    run(at)
    at.switch_page("pages/traces.py")
    at.query_params["session"] = session.id
    at.session_state["traces_tab"] = TRACES_STRINGS["traces.tab.replay"]["en"]
    run(at)
    assert at.button(key="present_enter").label == "Presentation mode"


def test_a_shared_link_can_say_the_language(store: SessionStore) -> None:
    session = open_example(store, "chinese")
    at = AppTest.from_file(APP, default_timeout=30)
    at.query_params.update(session=session.id, present="1", lang="zh")
    run(at)
    assert at.button(key="present_next").label == TRACES_STRINGS["traces.replay.next"]["zh"]
    assert at.button(key="present_exit").label == "退出演示"
