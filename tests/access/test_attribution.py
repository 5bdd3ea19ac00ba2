"""Exports say who started each run: JSON Lines on each run_started line, Markdown in a closing table, the HTML
report under each turn's heading, OpenTelemetry as ``user.id`` on each run span."""

from __future__ import annotations

import json

import pytest

from agent_core.cli import main
from agent_core.store import Actor, SessionStore
from agent_core.trace_export import export_trace
from tests.store.helpers import arithmetic_agent, run


def test_trace_exports_name_who_started_each_run(file_db_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    store = SessionStore.open(file_db_url)
    alice = store.acting_as(Actor.user("sub-alice", "alice@example.com"))
    session = alice.sessions.create()
    first = run(alice, session.id, arithmetic_agent(), "What is 6*7?")[0].run_id
    second = run(
        store.acting_as(Actor.user("sub-boss", "boss|*@x", is_admin=True)), session.id, arithmetic_agent(), "2*3?"
    )
    store.close()
    assert main(["sessions", "export-trace", session.id, "--db", file_db_url, "--user", "sub-alice"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    started = [(e["run_id"], e.get("started_by")) for e in lines if e["type"] == "run_started"]
    assert started == [(first, "alice@example.com"), (second[0].run_id, "boss|*@x")]
    assert all("started_by" not in e for e in lines if e["type"] != "run_started")
    assert main(["sessions", "show", session.id, "--db", file_db_url]) == 0
    shown = capsys.readouterr().out
    assert "owner sub-alice" in shown and "What is 6*7?  (started by alice@example.com)" in shown
    assert main(["sessions", "export-trace", session.id, "--format", "md", "--db", file_db_url]) == 0
    markdown = capsys.readouterr().out
    table = markdown.split("## Who started each run\n\n")[1].splitlines()
    assert table[:4] == [
        "| Run | Started by |",
        "| --- | --- |",
        f"| `{first}` | alice@example.com |",
        f"| `{second[0].run_id}` | boss\\|\\*@x |",
    ]
    assert main(["sessions", "export-trace", session.id, "--format", "html", "--db", file_db_url]) == 0
    report = capsys.readouterr().out
    assert report.count("started by alice@example.com") == 1 and "started by boss|*@x" in report
    assert main(["sessions", "export-trace", session.id, "--format", "otel", "--db", file_db_url]) == 0
    spans = json.loads(capsys.readouterr().out)["resourceSpans"][0]["scopeSpans"][0]["spans"]
    users = {
        a["value"]["stringValue"]
        for s in spans
        for a in s["attributes"]
        if a["key"] == "user.id" and not s.get("parentSpanId")
    }
    assert users == {"alice@example.com", "boss|*@x"}


def test_nothing_changes_without_names() -> None:
    events = list(arithmetic_agent().run("What is 6*7?"))
    for fmt in ("jsonl", "md", "otel", "html"):
        text = export_trace(events, fmt)  # type: ignore[arg-type]
        assert export_trace(events, fmt, starters={}) == text  # type: ignore[arg-type]
        assert export_trace(events, fmt, starters={"run_other": "x"}) == text or fmt == "md"  # type: ignore[arg-type]
        assert "started by" not in text.lower() and "user.id" not in text
