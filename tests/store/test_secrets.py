"""A known API key, used for real against a server that demands it, appears in no row, file or log line."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agent_core import Agent, OpenAIChatModel
from agent_core.runtime.sessions import config_from_agent, run_in_session
from agent_core.store import SessionStore, StoreAccess, export_session, import_session
from agent_core.testing import FakeOpenAIServer
from tests.core.helpers import answer, react
from tests.store.helpers import all_cells

KEY = "sk-test-SECRET-123"
REPO = Path(__file__).resolve().parents[2]


def assert_no_key(where: str, data: bytes | str) -> None:
    """The key, in any common spelling, is not in ``data``."""
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    for spelling in (KEY, KEY.lower(), "SECRET-123"):
        assert spelling not in text, f"the API key leaked into {where}"


def test_the_api_key_never_reaches_the_database_files_or_logs(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    db_file = tmp_path / "sparrow.db"
    url = f"sqlite:///{db_file}"
    replies = [react("multiply", "calculator", expression="6*7"), answer("done", "42")] * 2
    with FakeOpenAIServer(replies, api_key=KEY) as server:  # refuses any request without the key
        store = SessionStore.open(url)
        agent = Agent(OpenAIChatModel("fake-model", api_key=KEY, base_url=server.base_url), max_steps=3)
        session = store.sessions.create(config_from_agent(agent))
        events = list(run_in_session(store, session.id, agent, "What is 6*7?"))
        assert events[-1].status == "completed"  # type: ignore[attr-defined]
        store.snapshots.save(session.id, "saved")
        exported = export_session(store, session.id)
        import_session(store, exported)
        store.snapshots.fork(store.snapshots.list(session.id)[0].id)

        env = {**os.environ, "OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": server.base_url, "PYTHONPATH": str(REPO)}
        ask = [sys.executable, "-m", "agent_core", "ask", "What is 6*7?", "--db", url, "--model", "fake-model"]
        asked = subprocess.run(ask, env=env, cwd=tmp_path, capture_output=True, timeout=60)
        assert asked.returncode == 0, asked.stderr.decode()
        out_file = tmp_path / "export.json"
        export = [
            sys.executable,
            "-m",
            "agent_core",
            "sessions",
            "export",
            session.id,
            "--db",
            url,
            "-o",
            str(out_file),
        ]
        exported_by_cli = subprocess.run(export, env=env, cwd=tmp_path, capture_output=True, timeout=60)
        assert exported_by_cli.returncode == 0, exported_by_cli.stderr.decode()
    assert len(server.requests) == 4 and len(store.sessions.list()) == 4

    assert_no_key("the session config", repr([s.config for s in store.sessions.list()]))
    store.close()
    cells = all_cells(db_file)
    assert len(cells) > 50
    assert_no_key("a database row", "\n".join(cells))
    for file in tmp_path.rglob("*"):
        if file.is_file():
            assert_no_key(str(file.relative_to(tmp_path)), file.read_bytes())
    assert_no_key("the exported file", exported)
    assert_no_key("the CLI output", asked.stdout + asked.stderr + exported_by_cli.stdout + exported_by_cli.stderr)
    assert caplog.records, "nothing was logged: the log check would prove nothing"
    assert_no_key("the logs", caplog.text)


def test_a_key_that_turns_up_inside_an_event_is_redacted(store: SessionStore) -> None:
    guarded = SessionStore(StoreAccess.over(store.engine, secrets=[KEY, None, "short"]))
    agent = Agent(OpenAIChatModel("fake-model", api_key=KEY, base_url="http://127.0.0.1:9/v1", max_retries=0))
    session = guarded.sessions.create(config_from_agent(agent))
    list(run_in_session(guarded, session.id, agent, f"my key is {KEY}, is it short?"))
    stored = guarded.log.events(session.id)
    assert stored[0].question == "my key is [REDACTED], is it short?"  # type: ignore[attr-defined]
    assert guarded.sessions.get(session.id).title == "my key is [REDACTED], is it short?"
    assert_no_key("a redacted session", export_session(guarded, session.id))
