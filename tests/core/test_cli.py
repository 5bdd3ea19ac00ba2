"""The CLI as a user runs it: a real process against the fake OpenAI-compatible server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agent_core.testing import FakeOpenAIServer, Reply
from tests.core.helpers import answer, react

ROOT = Path(__file__).resolve().parents[2]
SEED = "What weekday is 150 days after 2024-05-20?"
DATE_STEP = react("I need date arithmetic.", "date_calculator", operation="add", date="2024-05-20", days=150)
DATE_ANSWER = answer("The tool says so.", "150 days after 2024-05-20 is 2024-10-17, a Thursday.")


def sparrow(
    server: FakeOpenAIServer, *args: str, stdin: str = "", timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": "sk-cli-test"}
    return subprocess.run(
        [sys.executable, "-m", "agent_core", *args],
        cwd=ROOT,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.mark.parametrize("streaming", [True, False])
def test_the_seed_question_end_to_end(streaming: bool) -> None:
    with FakeOpenAIServer([DATE_STEP, DATE_ANSWER]) as server:
        flags = [] if streaming else ["--no-stream"]
        done = sparrow(server, "ask", SEED, "--no-save", "--tools", "date_calculator", *flags)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "150 days after 2024-05-20 is 2024-10-17, a Thursday.\n"
    assert '→ date_calculator({"operation": "add", "date": "2024-05-20", "days": 150})' in done.stderr
    assert "← 2024-05-20 (Monday) + 150 days = 2024-10-17 (Thursday)" in done.stderr
    assert "✓ completed · 2 steps · 1 tool call ·" in done.stderr
    assert [r["stream"] for r in server.requests] == [streaming, streaming]


def test_json_output_is_one_event_per_line() -> None:
    with FakeOpenAIServer([DATE_STEP, DATE_ANSWER]) as server:
        done = sparrow(server, "ask", SEED, "--no-save", "--json")
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    kinds = [e["type"] for e in events if e["type"] != "model_delta"]
    assert kinds == [
        "run_started",
        "step_started",
        "model_finished",
        "tool_started",
        "tool_finished",
        "step_started",
        "model_finished",
        "final_answer",
        "run_finished",
    ]
    assert any(e["type"] == "model_delta" for e in events)
    started = next(e for e in events if e["type"] == "tool_started")
    assert (started["tool"], started["arguments"]) == (
        "date_calculator",
        {"operation": "add", "date": "2024-05-20", "days": 150},
    )
    assert (events[-1]["status"], events[-1]["final_answer"]) == (
        "completed",
        "150 days after 2024-05-20 is 2024-10-17, a Thursday.",
    )


def test_transient_429_and_503_are_retried() -> None:
    replies = [Reply(status=429), DATE_STEP, Reply(status=503), DATE_ANSWER]
    with FakeOpenAIServer(replies) as server:
        done = sparrow(server, "ask", SEED, "--no-save")
    assert done.returncode == 0, done.stderr
    assert len(server.requests) == 4
    assert "retried after 429]" in done.stderr and "retried after 503]" in done.stderr


def test_a_stalled_server_ends_with_a_clear_timeout() -> None:
    with FakeOpenAIServer([Reply("Thought: hmm", stall=True)] * 5) as server:
        done = sparrow(server, "ask", SEED, "--no-save", "--timeout", "0.5", "--time-limit", "3")
    assert done.returncode == 1
    assert "timed out" in done.stderr or "time limit" in done.stderr
    assert "Traceback" not in done.stderr


def test_max_steps_exits_non_zero_with_the_reason() -> None:
    with FakeOpenAIServer([react("again", "calculator", expression=f"{i}") for i in (1, 2)]) as server:
        done = sparrow(server, "ask", "loop", "--no-save", "--max-steps", "2")
    assert done.returncode == 1
    assert "✗ max_steps · 2 steps · 2 tool calls" in done.stderr
    assert "no final answer after 2 steps" in done.stderr
    assert done.stdout == ""


def test_no_configuration_is_one_line() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    done = subprocess.run(
        [sys.executable, "-m", "agent_core", "ask", "hi", "--no-save"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.startswith("sparrow: No model endpoint configured: set OPENAI_API_KEY")
    assert len(done.stderr.strip().splitlines()) == 1


def test_unknown_tool_name_is_a_usage_error() -> None:
    with FakeOpenAIServer([]) as server:
        done = sparrow(server, "ask", "hi", "--no-save", "--tools", "calculator,teleport")
    assert done.returncode == 2
    assert "sparrow: unknown tool(s): teleport; available: calculator" in done.stderr


FETCH = react("I will fetch the page.", "fetch_url", url="http://127.0.0.1:9/x")
AFTER = answer("done", "finished")


@pytest.mark.parametrize(
    ("stdin", "flags", "outcome"),
    [
        ("y\n", [], "fetch_url: approved"),
        ("n\n", [], "fetch_url: denied"),
        ("", [], "no answer (end of input): denied"),
        ("", ["--yes"], "fetch_url: approved by --yes"),
    ],
)
def test_tools_that_need_approval_ask_on_the_terminal(stdin: str, flags: list[str], outcome: str) -> None:
    with FakeOpenAIServer([FETCH, AFTER]) as server:
        done = sparrow(server, "ask", "fetch it", "--no-save", *flags, stdin=stdin)
    assert done.returncode == 0, done.stderr
    assert outcome in done.stderr
    if not flags:
        assert '? fetch_url wants to run with {"url": "http://127.0.0.1:9/x"}. Allow it? [y/N]' in done.stderr
    observation = server.requests[1]["messages"][-1]["content"]
    if "denied" in outcome:
        assert observation.startswith("Observation: Error: the user denied this call to fetch_url")
    else:
        assert observation.startswith("Observation: Error: fetch_url refused: 127.0.0.1 is a loopback address")


@pytest.mark.parametrize("fmt", ["jsonl", "otel", "md"])
def test_export_trace_of_a_recorded_session(fmt: str, tmp_path: Path) -> None:
    with FakeOpenAIServer([DATE_STEP, DATE_ANSWER]) as server:
        done = sparrow(server, "ask", SEED, "--db", f"sqlite:///{tmp_path / 'db.sqlite'}")
        session_id = done.stderr.split("session: ", 1)[1].split()[0]
        out = tmp_path / f"trace.{fmt}"
        exported = sparrow(
            server,
            "sessions",
            "export-trace",
            session_id,
            "--format",
            fmt,
            "-o",
            str(out),
            "--db",
            f"sqlite:///{tmp_path / 'db.sqlite'}",
        )
    assert exported.returncode == 0, exported.stderr
    text = out.read_text(encoding="utf-8")
    if fmt == "jsonl":
        assert [json.loads(line)["type"] for line in text.splitlines()][-1] == "run_finished"
    elif fmt == "otel":
        spans = json.loads(text)["resourceSpans"][0]["scopeSpans"][0]["spans"]
        assert {s["name"] for s in spans} >= {
            "invoke_agent sparrow",
            "chat gpt-4o-mini",
            "execute_tool date_calculator",
        }
    else:
        assert text.startswith(f"# Sparrow session {session_id}".replace("_", "\\_"))
        assert "2024-10-17 (Thursday)" in text
