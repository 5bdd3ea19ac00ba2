"""kill -9 in the middle of a run: every event written before the kill is there, and the run resumes to the end."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from agent_core.events import RunFinished, StepStarted, event_from_dict
from agent_core.store import SessionStore
from agent_core.testing import FakeOpenAIServer, Reply
from tests.core.helpers import answer, react, simplify

REPO = Path(__file__).resolve().parents[2]


def cli(*args: str) -> list[str]:
    """The command line of ``python -m agent_core ARGS``."""
    return [sys.executable, "-m", "agent_core", *args]


def wait_for_step_two(store: SessionStore, server: FakeOpenAIServer, timeout: float = 30.0) -> str:
    """The id of the session once its run has saved step 2's start and the model call for it is under way."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for session in store.sessions.list():
            started = [e for e in store.log.events(session.id) if isinstance(e, StepStarted)]
            if started and started[-1].step == 2 and len(server.requests) == 2:
                return session.id
        time.sleep(0.05)
    raise AssertionError("the run never reached step 2")


def test_a_run_killed_with_sigkill_keeps_its_events_and_resumes(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'sparrow.db'}"
    store = SessionStore.open(url)
    script = [
        react("multiply", "calculator", expression="6*7"),
        Reply(text=answer("I have it.", "42"), stall=True),  # hangs after the first chunk: the kill comes here
        answer("I have it.", "42"),  # for the resumed run
    ]
    with FakeOpenAIServer(script) as server:
        env = {**os.environ, "OPENAI_BASE_URL": server.base_url, "PYTHONPATH": str(REPO)}
        ask = cli("ask", "What is 6*7?", "--db", url, "--model", "fake-model", "--json")
        process = subprocess.Popen(ask, env=env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            session_id = wait_for_step_two(store, server)
        finally:
            process.send_signal(signal.SIGKILL)
            stdout, stderr = process.communicate(timeout=10)
        assert process.returncode == -signal.SIGKILL
        assert f"session: {session_id}" in stderr.decode()

        shown = [event_from_dict(json.loads(line)) for line in stdout.decode().splitlines()]
        stored = store.log.events(session_id)
        assert [e for e in shown if e.type != "model_delta"] == stored  # everything shown had been saved
        assert simplify(stored) == [
            ("run_started", "What is 6*7?"),
            ("step", 1),
            ("model", "multiply", [("calculator", {"expression": "6*7"})]),
            ("tool", "calculator", {"expression": "6*7"}),
            ("observation", "42", None),
            ("step", 2),
        ]
        interrupted = store.runs.interrupted(session_id)
        assert interrupted is not None and interrupted.run_id == stored[0].run_id

        resume = cli("sessions", "resume", session_id, "--db", url, "--model", "fake-model")
        result = subprocess.run(resume, env=env, cwd=tmp_path, capture_output=True, timeout=60)
    assert (result.returncode, result.stdout.decode()) == (0, "42\n"), result.stderr.decode()
    assert "resumed at step 2" in result.stderr.decode()
    after = store.log.events(session_id)
    assert after[: len(stored)] == stored
    assert simplify(after[len(stored) :]) == [
        ("run_resumed", 2),
        ("step", 2),
        ("model", "I have it.", "42"),
        ("answer", "42"),
        ("finished", "completed", "42", None),
    ]
    finished = after[-1]
    assert isinstance(finished, RunFinished) and finished.run_id == interrupted.run_id and finished.tool_calls == 1
    assert store.runs.interrupted(session_id) is None
    store.close()
