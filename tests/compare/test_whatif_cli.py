"""``sessions fork``, ``sessions diff`` and ``sessions resample`` as a user runs them, against the fake server."""

from __future__ import annotations

import json
from pathlib import Path

from agent_core.engine.agent import Agent
from agent_core.events import ModelSampled
from agent_core.runtime.sessions import run_in_session
from agent_core.store import SessionStore
from agent_core.testing import FakeOpenAIServer, ScriptedModel
from agent_core.tools import builtin_tools
from agent_core.views.transcript import Transcript
from tests.core.helpers import answer, react
from tests.core.test_cli import sparrow

SUM = react("Add first.", "calculator", expression="2+2")
PRODUCT = react("Now multiply.", "calculator", expression="3*3")


def original(db: str) -> tuple[str, str]:
    store = SessionStore.open(db)
    session = store.sessions.create()
    agent = Agent(ScriptedModel([SUM, PRODUCT, answer("Done.", "4 and 9")], name="fake-model"), builtin_tools())
    events = list(run_in_session(store, session.id, agent, "What are 2+2 and 3*3?"))
    return session.id, events[0].run_id


def test_fork_diff_and_resample_from_the_command_line(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'sparrow.db'}"
    sid, rid = original(db)
    with FakeOpenAIServer([SUM, answer("Checked.", "4 and 10")]) as server:
        done = sparrow(server, "sessions", "fork", sid, "--db", db, "--at-step", "2", "--observation", "10", "--yes")
        assert done.returncode == 0, done.stderr
        assert len(server.requests) == 2  # steps 3 and 4; steps 1 and 2 were copied
    fork_id = done.stdout.strip()
    # step 3 asks step 1's calculator call again: a repeat within the branch (its copied steps count), so it is not
    # run again and its recorded result is restated (reuse of later original steps: tests/compare/test_fork.py)
    assert fork_id.startswith("ses_") and "repeat of step 1, not run again" in done.stderr
    store = SessionStore.open(db)
    turn = Transcript.from_events(store.log.events(fork_id)).turns[-1]
    assert turn.answer == "4 and 10" and turn.forked is not None and turn.forked.from_run == rid

    with FakeOpenAIServer([]) as server:
        diff = sparrow(server, "sessions", "diff", sid, fork_id, "--db", db, "--json")
        text = sparrow(server, "sessions", "diff", sid, fork_id, "--db", db)
    assert diff.returncode == 0, diff.stderr
    report = json.loads(diff.stdout)
    assert [s["status"] for s in report["steps"]] == ["same", "changed", "added", "changed"]
    assert report["first_divergence"] == 1 and report["steps"][1]["fields"]["observation"]["right"] == "10"
    assert report["steps"][2]["status"] == "added" and report["steps"][2]["reused"] == []  # 2+2 again: a repeat
    assert report["summary"].startswith("steps +1")
    assert "step 2 / 2  ← first divergence" in text.stdout

    with FakeOpenAIServer([PRODUCT, PRODUCT, answer("Guess.", "9")]) as server:
        sampled = sparrow(server, "sessions", "resample", sid, "--db", db, "--run", rid, "--at-step", "2", "-k", "3")
        assert len(server.requests) == 3
    assert sampled.returncode == 0, sampled.stderr
    assert sampled.stdout.splitlines() == ['  2 × calculator {"expression":"3*3"}', "  1 × answer: 9"]
    samples = [e for e in store.log.events(sid) if isinstance(e, ModelSampled)]
    assert [(s.run_id, s.step) for s in samples] == [(rid, 2)] * 3


def test_bad_edits_are_one_clear_sentence(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'sparrow.db'}"
    sid, _ = original(db)
    with FakeOpenAIServer([]) as server:
        late = sparrow(server, "sessions", "fork", sid, "--db", db, "--at-step", "9", "--answer", "x")
        bad = sparrow(server, "sessions", "fork", sid, "--db", db, "--at-step", "1", "--action", "calculator",
                      "--action-input", "[1]")  # fmt: skip
    assert late.returncode == 2 and late.stderr == "sparrow: the run has steps 1 to 3: there is no step 9 to fork at\n"
    assert bad.returncode == 2 and "--action-input must be a JSON object" in bad.stderr
