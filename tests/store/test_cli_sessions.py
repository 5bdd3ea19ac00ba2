"""The CLI: ``ask`` records sessions, ``ask --session`` continues one, ``sessions ...`` manages them."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_core.cli import main
from agent_core.formatting import format_timestamp
from agent_core.store import SessionStore
from agent_core.testing import FakeOpenAIServer, Reply
from tests.core.helpers import answer, react
from tests.postgres import execute

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def url(file_db_url: str) -> str:
    """The database the commands use (passed with --db): an SQLite file, or PostgreSQL."""
    return file_db_url


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAIServer]:
    """A fake OpenAI server (both protocols) that multiplies with the calculator, set as OPENAI_BASE_URL."""

    def reply(body: dict[str, Any]) -> str | Reply:
        native, last = "tools" in body, body["messages"][-1]
        if last["role"] == "tool" or last["content"].startswith("Observation: "):
            result = last["content"].removeprefix("Observation: ")
            return result if native else answer("I have it.", result)
        if m := re.search(r"(\d+)\s*\*\s*(\d+)", last["content"]):
            expression = f"{m[1]}*{m[2]}"
            return (
                Reply.call("calculator", expression=expression)
                if native
                else react("x", "calculator", expression=expression)
            )
        text = f"{len(body['messages'])} messages"
        return text if native else answer("remembered", text)

    with FakeOpenAIServer(reply) as fake:
        monkeypatch.setenv("OPENAI_BASE_URL", fake.base_url)
        monkeypatch.setenv("SPARROW_MODEL", "fake-model")
        yield fake


def sparrow(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """Run the CLI in-process: (exit code, stdout, stderr)."""
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_ask_records_a_new_session_and_ask_session_continues_it(
    capsys: pytest.CaptureFixture[str], server: FakeOpenAIServer, url: str
) -> None:
    code, out, err = sparrow(capsys, "ask", "What is 6*7?", "--db", url, "--protocol", "tools", "--max-steps", "4")
    assert (code, out) == (0, "42\n")
    session_id = re.search(r"^session: (ses_[0-9a-f]{16})$", err, re.M)[1]  # type: ignore[index]

    code, out, err = sparrow(capsys, "ask", "What did I ask?", "--db", url, "--session", session_id)
    assert (code, out, "session:" in err) == (0, "4 messages\n", False)  # system, earlier Q and A, new question
    assert server.requests[-1]["messages"][1] == {"role": "user", "content": "What is 6*7?"}
    assert "tools" in server.requests[-1]  # the session's protocol, not the default
    store = SessionStore.open(url)
    [session] = store.sessions.list()
    assert (session.id, session.title, session.config.settings["max_steps"]) == (session_id, "What is 6*7?", 4)
    assert [e.type for e in store.log.events(session_id)].count("run_finished") == 2
    store.close()


def test_ask_no_save_leaves_no_session(capsys: pytest.CaptureFixture[str], server: FakeOpenAIServer, url: str) -> None:
    assert sparrow(capsys, "ask", "What is 2*3?", "--db", url, "--no-save")[:2] == (0, "6\n")
    assert sparrow(capsys, "sessions", "list", "--db", url, "--json")[1] == "[]\n"


def test_list_show_rename_export_import_delete(
    capsys: pytest.CaptureFixture[str],
    server: FakeOpenAIServer,
    url: str,
    new_db_url: Callable[..., str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sparrow(capsys, "ask", "What is 6*7?", "--db", url)
    [listed] = json.loads(sparrow(capsys, "sessions", "list", "--db", url, "--json")[1])
    session_id = listed["id"]
    assert (listed["title"], listed["events"], listed["model"]) == ("What is 6*7?", 9, "fake-model")
    assert re.fullmatch(
        rf"{session_id}  \d{{4}}-\d\d-\d\d \d\d:\d\d +9 events  What is 6\*7\?\n",
        sparrow(capsys, "sessions", "list", "--db", url)[1],
    )

    code, out, _ = sparrow(capsys, "sessions", "show", session_id, "--db", url)
    assert code == 0 and "▶ What is 6*7?" in out and "✓ completed · 2 steps · 1 tool calls" in out and "  42" in out
    lines = sparrow(capsys, "sessions", "show", session_id, "--db", url, "--json")[1].splitlines()
    assert [json.loads(line)["type"] for line in lines][0::8] == ["run_started", "run_finished"]

    assert sparrow(capsys, "sessions", "rename", session_id, "Times", "--db", url)[1] == f"{session_id}  Times\n"
    target = tmp_path / "out" / "times.sparrow.json"
    assert sparrow(capsys, "sessions", "export", session_id, "--db", url, "-o", str(target))[0] == 0
    assert json.loads(target.read_bytes())["session"]["title"] == "Times"

    other = new_db_url()
    code, out, _ = sparrow(capsys, "sessions", "import", str(target), "--db", other)
    assert (code, out) == (0, f"{session_id}\n")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(target.read_bytes())))
    code, out, _ = sparrow(capsys, "sessions", "import", "-", "--db", other)
    assert code == 0 and out.strip() != session_id  # the id was taken: a fresh one

    assert sparrow(capsys, "sessions", "delete", session_id, "--db", url)[0] == 0
    assert sparrow(capsys, "sessions", "list", "--db", url, "--json")[1] == "[]\n"


def test_list_and_show_mark_an_imported_copy(capsys: pytest.CaptureFixture[str], url: str, tmp_path: Path) -> None:
    store = SessionStore.open(url)
    mine = store.sessions.create(title="mine")
    store.close()
    target = tmp_path / "mine.sparrow.json"
    assert sparrow(capsys, "sessions", "export", mine.id, "--db", url, "-o", str(target))[0] == 0
    code, copy_id, _ = sparrow(capsys, "sessions", "import", str(target), "--db", url)
    copy_id = copy_id.strip()
    listed = {s["id"]: s for s in json.loads(sparrow(capsys, "sessions", "list", "--db", url, "--json")[1])}
    imported_at = listed[copy_id]["imported_at"]
    assert code == 0 and listed[mine.id]["imported_at"] is None and isinstance(imported_at, float)
    lines = {line.split()[0]: line for line in sparrow(capsys, "sessions", "list", "--db", url)[1].splitlines()}
    assert lines[copy_id].endswith(f"  mine  [imported copy, {format_timestamp(imported_at)}]")
    assert lines[mine.id].endswith("  mine")
    assert "imported copy: imported from a session file" in sparrow(capsys, "sessions", "show", copy_id, "--db", url)[1]
    assert "imported" not in sparrow(capsys, "sessions", "show", mine.id, "--db", url)[1]


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["sessions", "show", "ses_nope"], 2, "sparrow: no session 'ses_nope'\n"),
        (["sessions", "delete", "ses_nope"], 2, "sparrow: no session 'ses_nope'\n"),
        (["sessions", "export", "ses_nope"], 2, "sparrow: no session 'ses_nope'\n"),
        (["sessions", "resume", "ses_nope"], 2, "sparrow: no session 'ses_nope'\n"),
        (["ask", "hi", "--session", "ses_nope"], 2, "sparrow: no session 'ses_nope'\n"),
        (["sessions", "import", "missing.json"], 1, "sparrow: No such file or directory: missing.json\n"),
    ],
)
def test_failures_are_one_line_and_non_zero(
    capsys: pytest.CaptureFixture[str], server: FakeOpenAIServer, url: str, args: list[str], code: int, message: str
) -> None:
    assert sparrow(capsys, *args, "--db", url) == (code, "", message)


def test_bad_files_newer_databases_and_finished_runs_are_reported(
    capsys: pytest.CaptureFixture[str], server: FakeOpenAIServer, url: str, tmp_path: Path
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "sparrow.session", "version": 9}')
    assert sparrow(capsys, "sessions", "import", str(bad), "--db", url)[0::2] == (
        1,
        "sparrow: version: this is a newer version (9) of the sparrow.session format; this build of Sparrow reads "
        "version 1 (upgrade Sparrow to import it)\n",
    )
    sparrow(capsys, "ask", "What is 6*7?", "--db", url)
    session_id = json.loads(sparrow(capsys, "sessions", "list", "--db", url, "--json")[1])[0]["id"]
    assert sparrow(capsys, "sessions", "resume", session_id, "--db", url)[0::2] == (
        2,
        f"sparrow: session {session_id} has no interrupted run\n",
    )
    execute(url, "UPDATE sparrow_alembic_version SET version_num = '9999_future'")
    code, out, err = sparrow(capsys, "sessions", "list", "--db", url)
    assert (code, out) == (1, "") and err.startswith("sparrow: the database ") and "schema revision 9999_future" in err
    assert err.count("\n") == 1


def test_as_a_real_process(server: FakeOpenAIServer, url: str, tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "agent_core", *args, "--db", url]
        return subprocess.run(command, env=env, cwd=tmp_path, capture_output=True, text=True, timeout=60)

    asked = run("ask", "What is 6*7?")
    assert (asked.returncode, asked.stdout) == (0, "42\n")
    session_id = re.search(r"session: (ses_[0-9a-f]{16})", asked.stderr)[1]  # type: ignore[index]
    exported = run("sessions", "export", session_id)
    assert exported.returncode == 0 and json.loads(exported.stdout)["session"]["id"] == session_id
    missing = run("sessions", "show", "ses_nope")
    assert (missing.returncode, missing.stdout, missing.stderr) == (2, "", "sparrow: no session 'ses_nope'\n")
