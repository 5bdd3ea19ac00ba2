"""Consent does not outlive its run: ``--yes`` and per-tool trust stay with the run they were given for."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_core import Agent
from agent_core.events import ApprovalDecided, ApprovalRequested, RunStarted
from agent_core.runtime.sessions import agent_for_session, rerun_turn, run_in_session
from agent_core.store import SessionStore
from agent_core.testing import FakeOpenAIServer, ScriptedModel
from agent_core.tools import tool
from tests.core.helpers import answer, react
from tests.core.test_cli import sparrow

FETCH = react("I will fetch the page.", "fetch_url", url="http://127.0.0.1:9/x")
AFTER = answer("done", "finished")


@tool(needs_approval=True)
def send(body: str) -> str:
    """Send a message.

    Args:
        body: The text.
    """
    return "sent"


def test_ask_yes_is_not_stored_so_the_next_ask_in_the_session_asks_again(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'db.sqlite'}"
    with FakeOpenAIServer([FETCH, AFTER, FETCH, AFTER]) as server:
        first = sparrow(server, "ask", "fetch it", "--yes", "--db", db)
        session_id = first.stderr.split("session: ", 1)[1].split()[0]
        second = sparrow(server, "ask", "fetch it again", "--session", session_id, "--db", db)
    assert "fetch_url: approved by --yes" in first.stderr
    assert "no answer (end of input): denied" in second.stderr
    assert "approved by --yes" not in second.stderr
    store = SessionStore.open(db)
    assert store.sessions.get(session_id).config.settings["require_approval"] is True
    started = [e for e in store.log.events(session_id) if isinstance(e, RunStarted)]
    assert [s.settings["require_approval"] for s in started] == [False, True]  # each run's own consent, on record


@pytest.mark.parametrize("consent", [{"require_approval": False}, {"tool_approval": {"send": False}}])
@pytest.mark.parametrize("later", ["continue", "fork"])
def test_a_later_run_or_a_fork_of_the_session_asks_again(consent: dict, later: str) -> None:
    store = SessionStore.open("sqlite://")
    session = store.sessions.create()
    script = [react("s", "send", body="hi"), answer("ok", "sent")]
    first = Agent(ScriptedModel(script), [send], **consent)
    events = list(run_in_session(store, session.id, first, "send hi"))
    assert not [e for e in events if isinstance(e, ApprovalRequested)]
    stored = json.dumps(store.sessions.get(session.id).config.settings)
    assert '"require_approval": true' in stored and '"tool_approval": {}' in stored
    if later == "continue":
        agent = agent_for_session(store, session.id, ScriptedModel(script), [send])
        run = run_in_session(store, session.id, agent, "send again")
    else:
        run_id = next(e.run_id for e in events if isinstance(e, RunStarted))
        _, run = rerun_turn(store, session.id, run_id, ScriptedModel(script), [send], protocol="react")
    for event in run:
        if isinstance(event, ApprovalRequested):
            break
        assert not isinstance(event, ApprovalDecided), "a later run was approved by an earlier run's consent"
    else:
        pytest.fail("the later run never asked")
