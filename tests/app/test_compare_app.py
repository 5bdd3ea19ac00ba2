"""The Compare page (AppTest): two turns of any sessions, the differences marked, and "Run again with…"."""

from __future__ import annotations

import re
from pathlib import Path

from streamlit.testing.v1 import AppTest

from agent_core.engine.agent import Agent
from agent_core.examples import open_example
from agent_core.runtime.sessions import run_in_session
from agent_core.store import SessionStore
from agent_core.testing import FakeOpenAIServer, Reply, ScriptedModel
from agent_core.testing.rule_llm import TWO_TOOLS
from agent_core.tools import builtin_tools
from agent_core.views.transcript import Transcript
from tests.core.helpers import TWO_TOOLS_REPLIES, answer

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def open_compare(left: str, right: str | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=30)
    at.run()
    at.switch_page("pages/compare.py")
    at.query_params["left"] = left
    if right:
        at.query_params["right"] = right
    at.run()
    assert not at.exception, at.exception
    return at


def first_turn(store: SessionStore, session_id: str) -> str:
    return f"{session_id}:{Transcript.from_events(store.log.events(session_id)).turns[0].run_id}"


def test_two_examples_side_by_side_with_their_differences(store: SessionStore) -> None:
    dates, chinese = open_example(store, "dates"), open_example(store, "chinese")
    at = open_compare(first_turn(store, dates.id), first_turn(store, chinese.id))
    table = at.table[0].value
    rows = {r["metric"]: r for r in table.to_dict("records")}
    assert rows["steps"]["left"] == "3" and rows["steps"]["right"] == "3" and rows["steps"][""] == ""
    assert rows["tokens"][""] == "≠"
    captions = [c.value for c in at.caption]
    assert any("First divergence: step 1 / 1" in c for c in captions)
    badges = [m.value for m in at.markdown if m.value.startswith(":")]
    assert sum("changed" in b for b in badges) >= 2  # the two sides of each changed pair
    removed = [m.value for m in at.markdown if ":red-background[" in m.value]
    inserted = [m.value for m in at.markdown if ":green-background[" in m.value]
    assert removed and inserted  # the words taken out on the left, put in on the right


def test_run_again_with_the_other_protocol_forks_and_compares(fake_llm: FakeOpenAIServer, store: SessionStore) -> None:
    session = store.sessions.create()
    list(
        run_in_session(
            store, session.id, Agent(ScriptedModel(TWO_TOOLS_REPLIES, name="gpt-4o-mini"), builtin_tools()), TWO_TOOLS
        )
    )
    before = store.log.events(session.id)
    at = open_compare(first_turn(store, session.id))
    assert at.radio(key="rerun_protocol").value == "tools"
    assert at.radio(key="rerun_protocol").options == ["ReAct text", "Native tools", "JSON schema"]
    at.button(key="rerun_go").click()
    at.run()
    assert not at.exception, at.exception
    fork_id, _, run_id = at.query_params["right"].partition(":")
    assert fork_id != session.id and store.log.events(session.id) == before
    assert store.sessions.get(fork_id).parent_id == session.id
    assert at.selectbox(key="compare_right_session").value == fork_id  # the picker follows the rerun
    rows = {r["metric"]: r for r in at.table[0].value.to_dict("records")}
    assert (rows["protocol"]["left"], rows["protocol"]["right"], rows["protocol"][""]) == (
        "ReAct text",
        "Native tools",
        "≠",
    )
    texts = [x.value for x in at.text]
    assert texts.count("calculator") >= 2 and texts.count('{"expression":"17 * 23"}') >= 2  # left keeps its calls
    assert rows["steps"]["right"] == "3" and rows["status"]["right"] == "completed"
    assert Transcript.from_events(store.log.events(fork_id)).turns[0].run_id == run_id


def test_hostile_tool_names_and_titles_stay_plain_text(store: SessionStore) -> None:
    hostile = "![x](http://evil.example/x.png)"
    session = store.sessions.create(title=f"[t]({hostile}) **title**")
    replies = [Reply.call(hostile), "ok"]
    agent = Agent(ScriptedModel(replies), builtin_tools(), protocol="tools")
    list(run_in_session(store, session.id, agent, "q"))
    assert Transcript.from_events(store.log.events(session.id)).turns[0].steps[0].actions[0].tool == hostile
    other = open_example(store, "dates")
    at = open_compare(first_turn(store, session.id), first_turn(store, other.id))
    shown = [m.value for m in at.markdown if "evil" in m.value]
    assert shown and all("![" not in v and not re.search(r"(?<!\\)\]\(http", v) for v in shown), shown


def test_opened_with_one_turn_the_other_side_is_a_different_run() -> None:
    store = SessionStore.open()
    session = store.sessions.create()
    agent = Agent(ScriptedModel([answer("a", "81"), answer("b", "refused")]), builtin_tools())
    list(run_in_session(store, session.id, agent, "9*9?"))
    list(run_in_session(store, session.id, agent, "9*9 again?"))
    first, second = Transcript.from_events(store.log.events(session.id)).turns
    at = open_compare(f"{session.id}:{second.run_id}")
    assert at.query_params["right"] == f"{session.id}:{first.run_id}"
    badges = [m.value for m in at.markdown if "changed" in m.value]
    assert badges and not any(":green-badge[= same]" in m.value for m in at.markdown)  # 81 vs refused
