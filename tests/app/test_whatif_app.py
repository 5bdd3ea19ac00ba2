"""What if in AppTest: edit a step of a failing trace and continue, re-sample a step, the branches tree."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from agent_core.engine.agent import Agent
from agent_core.events import ModelSampled
from agent_core.runtime.sessions import run_in_session
from agent_core.store import SessionStore
from agent_core.testing import FakeOpenAIServer, ScriptedModel
from agent_core.testing.rule_llm import TWO_TOOLS
from agent_core.tools import builtin_tools
from agent_core.views.transcript import Transcript
from sparrow_ui.shell.state import live_runs
from tests.core.helpers import answer, react

APP = str(Path(__file__).resolve().parents[2] / "app.py")
FIXED = "2024-05-20 (Monday) + 150 days = 2024-10-17 (Thursday)"
FAILING = [
    react("First I multiply 17 by 23.", "calculator", expression="17 * 23"),
    react("Now the date arithmetic.", "date_calculator", operation="add", date="2024-05-20", days="lots"),
    answer("The date tool failed.", "17 × 23 = 391; I could not work out the date."),
]


@pytest.fixture
def store(tmp_path: Any, monkeypatch: pytest.MonkeyPatch, fake_llm: FakeOpenAIServer) -> Iterator[SessionStore]:
    """A store in a fresh data directory the app opens too; the rule LLM is the configured model."""
    monkeypatch.setenv("SPARROW_DATA_DIR", str(tmp_path))
    st.cache_resource.clear()
    opened = SessionStore.open()
    yield opened
    opened.close()
    st.cache_resource.clear()


def failing_session(store: SessionStore) -> tuple[str, str]:
    session = store.sessions.create()
    agent = Agent(ScriptedModel(FAILING, name="gpt-4o-mini"), builtin_tools())
    events = list(run_in_session(store, session.id, agent, TWO_TOOLS))
    return session.id, events[0].run_id


def traces(session_id: str, step: int) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=30)
    at.run()
    at.switch_page("pages/traces.py")
    at.query_params["session"] = session_id
    at.run()
    run_id = Transcript.from_events(SessionStore.open().log.events(session_id)).turns[-1].run_id
    at.selectbox(key=f"inspect_{run_id}.en").set_value(step).run()
    assert not at.exception, at.exception
    return at


def settle(at: AppTest, session_id: str) -> None:
    """Wait for the branch running in the background, then draw Compare (where the button switched to).

    AppTest stays on the page a script switched away from; the browser test sees the switch itself.
    """
    live = live_runs().get(session_id)
    assert live is not None and live.join(timeout=30)
    time.sleep(0.2)
    at.switch_page("pages/compare.py")
    at.run()
    assert not at.exception, at.exception


def test_edit_step_2s_observation_continue_and_see_the_diff(store: SessionStore, fake_llm: FakeOpenAIServer) -> None:
    sid, rid = failing_session(store)
    before = store.log.events(sid)
    at = traces(sid, 2)
    key = f"whatif_{rid}_2"
    assert at.radio(key=f"{key}_kind.en").options == [
        "The tool's result",
        "The action and its arguments",
        "The thought",
        "A final answer",
        "Only the settings (ask again)",
    ]
    at.text_area(key=f"{key}_obs_call_1").set_value(FIXED)
    at.button(key=f"{key}_go").click().run()
    assert not at.exception, at.exception
    fork_id, _, branch_run = at.query_params["right"].partition(":")
    settle(at, fork_id)
    assert store.log.events(sid) == before and len(fake_llm.requests) == 1  # only step 3 was asked
    turn = Transcript.from_events(store.log.events(fork_id)).turn(branch_run)
    assert turn is not None and turn.answer and "2024-10-17, a Thursday" in turn.answer
    captions = [c.value for c in at.caption]
    assert any("Copied from the original" in c for c in captions), [*captions, *[m.value for m in at.markdown]]
    assert any("Edited here (observation)" in c for c in captions)
    assert any("First divergence: step 2 / 2" in c for c in captions)
    summary = [m.value for m in at.markdown if "Right minus left" in m.value]
    assert summary and "steps" not in summary[0]  # three steps each


def test_resample_shows_the_spread_and_a_sample_becomes_a_branch(store: SessionStore) -> None:
    sid, rid = failing_session(store)
    at = traces(sid, 3)
    key = f"whatif_{rid}_3"
    at.number_input(key=f"{key}_k").set_value(3)
    at.button(key=f"{key}_sample").click().run()
    assert not at.exception, at.exception
    samples = [e for e in store.log.events(sid) if isinstance(e, ModelSampled)]
    assert [(s.run_id, s.step) for s in samples] == [(rid, 3)] * 3
    charts = at.get("vega_lite_chart")
    data = [pa.ipc.open_stream(c.proto.data.data).read_all().to_pylist() for c in charts if c.proto.data.data]
    assert any(rows and rows[0]["count"] == 3 for rows in data), data  # the rule LLM answers alike each time
    branch = next(b for b in at.button if b.key == f"{key}_branch_0")
    branch.click().run()
    fork_id = at.query_params["right"].partition(":")[0]
    settle(at, fork_id)
    tree = traces(sid, 1)
    labels = [b.label for b in tree.sidebar.button if b.key and b.key.startswith("branch_")]
    assert len(labels) == 2 and "original" in labels[0] and "at step 3" in labels[1]


def test_the_chat_trace_column_has_the_controls_on_every_finished_step(store: SessionStore) -> None:
    sid, rid = failing_session(store)
    at = AppTest.from_file(APP, default_timeout=30)
    at.query_params["session"] = sid
    at.run()
    assert not at.exception, at.exception
    keys = {b.key for b in at.button if b.key}
    assert {f"whatif_{rid}_{n}_go" for n in (1, 2, 3)} <= keys
    assert {f"whatif_{rid}_{n}_sample" for n in (1, 2, 3)} <= keys
