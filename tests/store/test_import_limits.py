"""Whatever import accepts can be listed, shown, rendered, exported and re-imported byte-identically;
whatever cannot is refused with one line naming the field; one bad session never breaks a listing."""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
import tomllib
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import text

from agent_core.formatting import format_timestamp
from agent_core.guards.json_limits import MAX_DEPTH, check_values, tame
from agent_core.guards.untrusted import visible
from agent_core.runtime.session_runs import config_from_agent
from agent_core.store import SessionFileError, SessionStore, export_session, import_session
from agent_core.trace_export import export_trace
from agent_core.views.transcript import Transcript
from tests.store.helpers import arithmetic_agent, run, table_counts

ROOT = Path(__file__).resolve().parents[2]
BIG = "__1e400__"
BIG_INT = "__4000_digits__"


@cache
def valid_document() -> dict[str, Any]:
    """A real session file (one run with a tool call, and a snapshot), parsed."""
    store = SessionStore.open("sqlite://")
    agent = arithmetic_agent()
    session = store.sessions.create(config_from_agent(agent))
    run(store, session.id, agent, "What is 6*7?")
    store.snapshots.save(session.id, "done")
    document = json.loads(export_session(store, session.id))
    store.close()
    return document


def of_type(document: dict[str, Any], kind: str) -> dict[str, Any]:
    return next(e for e in document["events"] if e["type"] == kind)


def nested(levels: int) -> Any:
    value: Any = 1
    for _ in range(levels):
        value = {"a": value}
    return value


def setter(path: Callable[[dict[str, Any]], dict[str, Any]], key: str, value: Any) -> Callable[[dict[str, Any]], None]:
    return lambda document: path(document).__setitem__(key, value)


MUTATIONS = {
    "ts 1e400": (setter(lambda d: d["events"][1], "ts", BIG), r"events\[1\]\.ts: inf is not a finite number"),
    "ts in milliseconds": (setter(lambda d: d["events"][1], "ts", 1.7e12), r"events\[1\]\.ts: .*milliseconds"),
    "ts 2**63": (setter(lambda d: d["events"][0], "ts", 2**63), r"events\[0\]\.ts: .* between 1970 and 2100"),
    "ts negative": (setter(lambda d: d["events"][2], "ts", -1), r"events\[2\]\.ts: -1 is not a time"),
    "created_at 2**63": (setter(lambda d: d["session"], "created_at", 2**63), r"session\.created_at"),
    "updated_at ms": (setter(lambda d: d["session"], "updated_at", 1.7e12), r"session\.updated_at"),
    "blank title": (setter(lambda d: d["session"], "title", " \t "), r"session\.title: .*a title cannot be empty"),
    "snapshot time": (setter(lambda d: d["snapshots"][0], "created_at", 1e13), r"snapshots\[0\]\.created_at"),
    "arguments 800 deep": (
        setter(lambda d: of_type(d, "tool_started"), "arguments", {"x": nested(800)}),
        r"events\[\d+\]\.arguments\.x\.a.*nested deeper than 64 levels",
    ),
    "details 500 deep": (
        setter(lambda d: of_type(d, "tool_finished"), "details", nested(500)),
        r"events\[\d+\]\.details.*nested deeper",
    ),
    "settings 100 deep": (
        setter(lambda d: d["session"]["config"], "settings", {"x": nested(100)}),
        r"session\.config\.settings\.x.*nested deeper",
    ),
    "4000-digit tokens": (
        setter(lambda d: of_type(d, "model_finished")["usage"], "prompt_tokens", BIG_INT),
        r"events\[\d+\]\.usage\.prompt_tokens: an integer of \d+ bits is too large",
    ),
    "2**60 tokens": (
        setter(lambda d: of_type(d, "model_finished")["usage"], "completion_tokens", 2**60),
        r"usage\.completion_tokens: an integer of 61 bits",
    ),
    "details 1e400": (
        setter(lambda d: of_type(d, "tool_finished"), "details", {"v": [1, BIG]}),
        r"events\[\d+\]\.details\.v\[1\]: inf is not a finite number",
    ),
    "latency 1e400": (
        setter(lambda d: of_type(d, "model_finished"), "latency_ms", BIG),
        r"events\[\d+\]\.latency_ms: inf",
    ),
    "NaN literal": (setter(lambda d: of_type(d, "tool_finished"), "duration_ms", "__NaN__"), r"NaN"),
}


def raw(document: dict[str, Any]) -> str:
    data = json.dumps(document)
    return data.replace(f'"{BIG}"', "1e400").replace(f'"{BIG_INT}"', "9" * 4000).replace('"__NaN__"', "NaN")


@pytest.mark.parametrize("name", list(MUTATIONS))
def test_values_later_steps_cannot_handle_are_refused_naming_the_field(name: str) -> None:
    mutate, message = MUTATIONS[name]
    document = json.loads(json.dumps(valid_document()))
    mutate(document)
    store = SessionStore.open("sqlite://")
    before = table_counts(store.engine)
    with pytest.raises(SessionFileError) as caught:
        import_session(store, raw(document))
    assert re.search(message, str(caught.value)), str(caught.value)
    assert "\n" not in str(caught.value) and len(str(caught.value)) <= 300
    assert table_counts(store.engine) == before


JSON_LEAF = (
    st.none()
    | st.booleans()
    | st.integers(-(2**53), 2**53)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(st.characters(blacklist_categories=("Cs",)), max_size=30)
)
JSON_VALUE = st.recursive(
    JSON_LEAF,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=25,
)
TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=200)


def _shows(title: str) -> bool:
    """Whether a title keeps a visible character once its whitespace is collapsed."""
    return bool(visible(" ".join(title.split())))


@pytest.fixture(scope="module")
def two_stores() -> Iterator[tuple[SessionStore, SessionStore]]:
    """Two in-memory stores for the round trip, opened once (a new store migrates its schema: 0.1 s each)."""
    first, second = SessionStore.open("sqlite://"), SessionStore.open("sqlite://")
    yield first, second
    first.close()
    second.close()


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    arguments=st.dictionaries(st.text(max_size=8), JSON_VALUE, max_size=4),
    details=JSON_VALUE,
    answer=TEXT,
    # a title with something to show: a blank one is refused (MUTATIONS)
    title=st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=60).filter(_shows),
    ts=st.floats(0, 4_102_444_800),
)
def test_what_import_accepts_round_trips_byte_identically(
    two_stores: tuple[SessionStore, SessionStore],
    arguments: dict[str, Any],
    details: Any,
    answer: str,
    title: str,
    ts: float,
) -> None:
    document = json.loads(json.dumps(valid_document()))
    of_type(document, "tool_started")["arguments"] = arguments
    of_type(document, "tool_finished")["details"] = details
    of_type(document, "final_answer")["text"] = answer
    document["session"]["title"] = title
    document["events"][-1]["ts"] = ts
    first, second = two_stores  # each example imports a new session into the same two stores
    info = import_session(first, json.dumps(document, ensure_ascii=False))  # within every limit: accepted
    [listed] = [listed for listed in first.sessions.list() if listed.id == info.id]
    format_timestamp(listed.updated_at)
    events = first.log.events(info.id)
    Transcript.from_events(events)
    json.dumps([e.to_dict() for e in events], allow_nan=False)
    for fmt in ("jsonl", "md", "otel"):
        export_trace(events, fmt)  # type: ignore[arg-type]
    exported = export_session(first, info.id)
    again = import_session(second, exported)
    assert export_session(second, again.id) == exported


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.recursive(
        JSON_LEAF | st.just(math.inf) | st.just(-math.inf) | st.just(math.nan) | st.integers(),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
        max_leaves=20,
    ),
    st.integers(0, 200),
)
def test_tame_makes_any_tool_value_importable(value: Any, depth: int) -> None:
    deep = value
    for _ in range(depth):
        deep = [deep]
    check_values(tame(deep), "details")  # never raises
    if depth > MAX_DEPTH + 1:
        assert f"[nested deeper than {MAX_DEPTH} levels]" in json.dumps(tame(deep))


def test_a_damaged_row_does_not_break_the_listing(tmp_path: Path) -> None:
    store = SessionStore.open(f"sqlite:///{tmp_path / 's.db'}")
    good = store.sessions.create(title="good one")
    bad = store.sessions.create(title="bad one")
    with store.engine.begin() as conn:
        conn.execute(text("UPDATE sessions SET config = :c WHERE id = :i"), {"c": '{"protocol": 5}', "i": bad.id})
        conn.execute(text("UPDATE sessions SET updated_at = :u WHERE id = :i"), {"u": 1e300, "i": good.id})
    listed = {s.id: s for s in store.sessions.list()}
    assert set(listed) == {good.id, bad.id}
    assert listed[bad.id].config.protocol == "react"  # the damaged config reads as the defaults
    assert format_timestamp(listed[good.id].updated_at) == "—"
    store.close()
    result = subprocess.run(
        [sys.executable, "-m", "agent_core", "sessions", "list", "--db", f"sqlite:///{tmp_path / 's.db'}"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert "good one" in result.stdout


def test_the_docs_state_the_app_upload_limit_of_the_config() -> None:
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    limit = config["server"]["maxUploadSize"]
    page = (ROOT / "docs" / "sessions.md").read_text()
    assert f"uploads up to {limit} MB (`server.maxUploadSize`" in page
