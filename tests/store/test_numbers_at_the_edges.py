"""Numbers at the edges: whatever number the importer accepts, every exporter and view handles.

Driven by the importer's own input: every numeric field of real session files (the shipped examples, every event
type they hold) gets the values at the edges of JSON numbers; the importer refuses some in one sentence, and for
the rest every export format, the session file, the metrics, the transcript and ``sessions show`` must work.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_core.cli import main
from agent_core.store import SessionStore
from agent_core.store.files import SessionFileError, export_session, import_session
from agent_core.trace_export import export_trace
from agent_core.views.metrics import session_metrics
from agent_core.views.transcript import Transcript

EXAMPLES = Path(__file__).resolve().parents[2] / "agent_core" / "examples" / "sessions"
DOCUMENTS = {path.name: json.loads(path.read_text(encoding="utf-8")) for path in sorted(EXAMPLES.glob("*.json"))}


def numeric_paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path to a number (not a bool) in ``value``."""
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in numeric_paths(v, (*path, k))]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in numeric_paths(v, (*path, i))]
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return [path]
    return []


PATHS = [(name, p) for name, doc in DOCUMENTS.items() for p in numeric_paths(doc) if p[0] != "format"]
EDGES = [
    int("9" * 4000),
    -int("9" * 4000),
    2**63,
    2**53 + 1,
    -(2**31),
    -1,
    0,
    1e308,
    -1e308,
    5e-324,
    1e15,
    1.5,
    "NaN",
    "Infinity",
    "-Infinity",
]


def with_value(document: dict[str, Any], path: tuple[Any, ...], value: Any) -> str:
    """The document as JSON text with ``value`` at ``path`` (NaN and Infinity written as JSON-ish literals)."""
    copy = json.loads(json.dumps(document))
    node = copy
    for key in path[:-1]:
        node = node[key]
    marker = "__EDGE__"
    node[path[-1]] = marker
    literal = value if isinstance(value, str) else json.dumps(value)
    return json.dumps(copy).replace(json.dumps(marker), literal)


def test_the_examples_have_numbers_in_every_event_type() -> None:
    kinds = {doc["events"][p[1]]["type"] for _, p in PATHS if p[0] == "events" for doc in [DOCUMENTS[_]]}
    assert {"run_started", "model_finished", "tool_finished", "run_finished"} <= kinds
    assert len(PATHS) > 100


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> tuple[SessionStore, str]:
    url = f"sqlite:///{tmp_path_factory.mktemp('edges') / 'db.sqlite'}"
    return SessionStore.open(url), url


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(where=st.sampled_from(PATHS), value=st.sampled_from(EDGES))
def test_every_number_the_importer_accepts_every_view_survives(
    db: tuple[SessionStore, str], where: tuple[str, tuple[Any, ...]], value: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    store, url = db
    name, path = where
    try:
        session = import_session(store, with_value(DOCUMENTS[name], path, value))
    except SessionFileError as exc:
        assert str(exc).count("\n") == 0 and "Error" not in str(exc), str(exc)
        return
    events = store.log.events(session.id)
    for fmt in ("jsonl", "otel", "md", "html"):
        text = export_trace(events, fmt)
        if fmt in ("jsonl", "otel"):
            json.loads(text) if fmt == "otel" else [json.loads(line) for line in text.splitlines()]
    exported = json.loads(export_session(store, session.id))
    assert all(_finite(n) for n in _numbers(exported))
    session_metrics(events)
    Transcript.from_events(events)
    capsys.readouterr()
    assert main(["sessions", "show", session.id, "--db", url]) == 0
    assert main(["sessions", "list", "--db", url]) == 0
    assert main(["sessions", "export-trace", session.id, "--format", "otel", "--db", url]) == 0
    assert "unexpected error" not in capsys.readouterr().err


def _numbers(value: Any) -> list[float]:
    if isinstance(value, dict):
        return [n for v in value.values() for n in _numbers(v)]
    if isinstance(value, list):
        return [n for v in value for n in _numbers(v)]
    return [value] if isinstance(value, (int, float)) and not isinstance(value, bool) else []


def _finite(number: float) -> bool:
    return (math.isfinite(number) and abs(number) <= 2**53) or (isinstance(number, float) and math.isfinite(number))
