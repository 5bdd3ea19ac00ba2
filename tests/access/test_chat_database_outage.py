"""A long database outage during a run in the Chat page: the page says, in one sentence, that the database could not
record the run and that the run is interrupted and resumable; no traceback, no silent stop."""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from agent_core.store import SessionStore, database
from agent_core.testing import FakeOpenAIServer, Reply
from tests.app.test_chat_page import APP, texts

QUESTION = "Tell me about the weather in a few words."


def hold_lock_once_running(path: Path, seconds: float, stop: threading.Event) -> threading.Thread:
    """Once a run has recorded its start, hold the database's write lock from another connection for ``seconds``."""

    def work() -> None:
        store = SessionStore.open(f"sqlite:///{path}")
        while not stop.is_set() and not any(store.log.events(s.id) for s in store.sessions.list()):
            time.sleep(0.05)
        store.close()
        holder = sqlite3.connect(path, isolation_level=None)
        holder.execute("BEGIN EXCLUSIVE")
        stop.wait(seconds)
        holder.execute("COMMIT")
        holder.close()

    thread = threading.Thread(target=work, daemon=True)
    thread.start()
    return thread


@pytest.mark.parametrize("chunks", [10, 25])
def test_a_long_outage_stops_the_run_with_one_sentence_and_it_resumes(
    monkeypatch: pytest.MonkeyPatch, chunks: int
) -> None:
    monkeypatch.setattr(database, "BUSY_TIMEOUT_S", 0.2)
    monkeypatch.setenv("SPARROW_DB_RETRY_S", "0.5")
    path = Path(os.environ["SPARROW_DATA_DIR"]) / database.DEFAULT_DB_FILE
    answer = "Thought: I know this.\nFinal Answer: " + " ".join(["sunny"] * chunks)
    stop = threading.Event()
    with FakeOpenAIServer([Reply(answer, chunk_delay=0.1), "Thought: again.\nFinal Answer: sunny"]) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-apptest-key")
        at = AppTest.from_file(APP, default_timeout=60)
        at.run()
        locker = hold_lock_once_running(path, 6.0, stop)
        at.chat_input(key="question").set_value(QUESTION).run()
        assert not at.exception, at.exception
        errors = [e.value for e in at.error]
        stop.set()
        locker.join(10)
        assert len(errors) == 1, errors
        (sentence,) = errors
        assert sentence.startswith("the database could not record the ") and "database is locked" in sentence
        assert "is interrupted" in sentence and "sessions resume" in sentence and "\n" not in sentence
        assert "Traceback" not in texts(at) and "OperationalError" not in texts(at)
        assert any(b.label == "Resume the run" for b in at.button)
        store = SessionStore.open()
        (session,) = store.sessions.list()
        assert store.runs.interrupted(session.id) is not None
        deadline = time.monotonic() + 10
        while store.runs.live_owner(session.id) is not None and time.monotonic() < deadline:
            time.sleep(0.1)  # the stopped run's claim is released as soon as the database is back
        assert store.runs.live_owner(session.id) is None
        next(b for b in at.button if b.label == "Resume the run").click().run()
        assert not at.exception, at.exception
        assert not at.error, [e.value for e in at.error]
        assert store.runs.interrupted(session.id) is None
        store.close()
