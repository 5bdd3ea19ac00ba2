"""Example sessions in the app (AppTest): offered with no key, opened with no model, labelled, listed apart."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from agent_core.examples import EXAMPLES, example_name
from agent_core.store import SessionStore
from sparrow_ui.translations.strings_demo import STRINGS

APP = str(Path(__file__).resolve().parents[2] / "app.py")
TIMEOUT = 30
BANNER = "**Example session**"


def run(at: AppTest) -> AppTest:
    at.run()
    assert not at.exception, at.exception
    return at


def open_example_from_chat(name: str) -> AppTest:
    """The app with no key, then a click on the example's "Open an example session" button."""
    at = run(AppTest.from_file(APP, default_timeout=TIMEOUT))
    at.button(key=f"example_{name}").click()
    return run(at)


def test_the_no_key_chat_page_offers_every_example() -> None:
    at = run(AppTest.from_file(APP, default_timeout=TIMEOUT))
    labels = [b.label for b in at.button if b.key and b.key.startswith("example_")]
    assert labels == [STRINGS["examples.open"]["en"].format(title=e.title) for e in EXAMPLES]
    assert at.chat_input(key="question").disabled is True


def test_opening_an_example_shows_its_chat_trace_and_banner_without_a_model(store: SessionStore) -> None:
    at = open_example_from_chat("recovery")
    session_id = at.query_params["session"]
    assert example_name(store.sessions.get(session_id)) == "recovery"
    assert any(BANNER in i.value for i in at.info)
    page = "\n".join(m.value for m in at.markdown)
    assert "√366 ≈ **19.13**" in page
    shown = [c.value for c in at.code] + [e.value for e in at.error] + [page]
    assert any("was never closed" in text for text in shown)  # the failing tool call is in the trace
    at.switch_page("pages/traces.py")
    run(at)
    assert any(BANNER in i.value for i in at.info)
    assert at.get("vega_lite_chart"), "the Traces page draws the run's charts"


def test_the_sessions_page_lists_examples_apart(store: SessionStore) -> None:
    at = open_example_from_chat("dates")
    at.switch_page("pages/sessions.py")
    run(at)
    assert not [b for b in at.button if b.key and b.key.startswith("open_ses")]  # not among the user's sessions
    assert [b for b in at.button if b.key and b.key.startswith("open_example_ses")]
    assert any(e.label.startswith(STRINGS["examples.section"]["en"]) for e in at.expander)
    offered = [b.key for b in at.button if b.key and b.key.startswith("more_example_")]
    assert offered == [f"more_example_{e.name}" for e in EXAMPLES if e.name != "dates"]
    at.button(key="more_example_parallel").click()
    run(at)
    assert example_name(store.sessions.get(at.query_params["session"])) == "parallel"
