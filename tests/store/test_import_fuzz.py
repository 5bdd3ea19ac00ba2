"""Hostile session files: whatever the bytes, import either adds one whole session or raises SessionFileError
with a one-line message and writes nothing."""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_core.runtime.sessions import config_from_agent
from agent_core.store import SessionFileError, SessionStore, export_session, import_session
from tests.store.helpers import arithmetic_agent, run, table_counts

FUZZ = settings(max_examples=60, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
DEEP = "__deep_nesting__"


@pytest.fixture(scope="module")
def fuzz_store() -> Iterator[SessionStore]:
    """One in-memory store for all examples (each import must leave it whole)."""
    store = SessionStore.open("sqlite://")
    yield store
    store.close()


@cache
def valid_file() -> bytes:
    """A real session file: one run with a tool call, and a snapshot."""
    store = SessionStore.open("sqlite://")
    agent = arithmetic_agent()
    session = store.sessions.create(config_from_agent(agent))
    run(store, session.id, agent, "What is 6*7?")
    store.snapshots.save(session.id, "done")
    data = export_session(store, session.id)
    store.close()
    return data


def valid_document() -> dict[str, Any]:
    """A fresh parsed copy of the valid file."""
    return json.loads(valid_file())


def assert_all_or_nothing(store: SessionStore, data: bytes) -> None:
    """Import ``data``: one whole new session, or a clear refusal that changed nothing."""
    before = table_counts(store.engine)
    try:
        session = import_session(store, data)
    except SessionFileError as exc:
        message = str(exc)
        assert message and "\n" not in message and len(message) <= 300
        assert table_counts(store.engine) == before
        return
    after = table_counts(store.engine)
    assert after["sessions"] == before["sessions"] + 1
    assert after["events"] == before["events"] + len(store.log.events(session.id))
    assert after["snapshots"] == before["snapshots"] + len(store.snapshots.list(session.id))


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=12,
)
hostile_values = (
    json_values
    | st.sampled_from(["x" * 300_000, "é" * 50_000, "\ud800", "\udfff", -1, 0, 2**64, -(2**70), 1e308, "", DEEP])
    | st.integers(min_value=-(2**80), max_value=2**80)
)


@st.composite
def replaced_somewhere(draw: st.DrawFn) -> bytes:
    """The valid document with one value, somewhere inside it, replaced by a hostile one."""
    doc = valid_document()
    node: Any = doc
    while True:
        keys = list(node) if isinstance(node, dict) else list(range(len(node)))
        if not keys:
            break
        key = draw(st.sampled_from(keys))
        child = node[key]
        if not isinstance(child, (dict, list)) or draw(st.booleans()):
            node[key] = draw(hostile_values)
            break
        node = child
    depth = draw(st.integers(min_value=50, max_value=20_000))
    return json.dumps(doc).replace(json.dumps(DEEP), "[" * depth + "]" * depth).encode()  # non-ASCII as \u escapes


@FUZZ
@given(cut=st.integers(min_value=0, max_value=len(valid_file()) - 1))
def test_truncated_files(fuzz_store: SessionStore, cut: int) -> None:
    assert_all_or_nothing(fuzz_store, valid_file()[:cut])


@FUZZ
@given(position=st.integers(min_value=0, max_value=len(valid_file()) - 1), byte=st.integers(0, 255))
def test_corrupted_bytes(fuzz_store: SessionStore, position: int, byte: int) -> None:
    data = bytearray(valid_file())
    data[position] = byte
    assert_all_or_nothing(fuzz_store, bytes(data))


@FUZZ
@given(data=replaced_somewhere())
def test_wrong_types_huge_strings_and_deep_nesting_anywhere(fuzz_store: SessionStore, data: bytes) -> None:
    assert_all_or_nothing(fuzz_store, data)


@FUZZ
@given(pairs=st.lists(st.tuples(st.integers(0, 100), st.integers(0, 100)), min_size=1, max_size=3))
def test_duplicate_and_shuffled_sequence_numbers(fuzz_store: SessionStore, pairs: list[tuple[int, int]]) -> None:
    doc = valid_document()
    events = doc["events"]
    for a, b in pairs:
        events[a % len(events)]["seq"] = events[b % len(events)]["seq"]
    counts = table_counts(fuzz_store.engine)
    if [e["seq"] for e in events] == sorted({e["seq"] for e in events}):
        assert_all_or_nothing(fuzz_store, json.dumps(doc).encode())  # still strictly increasing: may import
        return
    with pytest.raises(SessionFileError, match=r"events\[\d+\]\.seq: (duplicate sequence number|.*out of order)"):
        import_session(fuzz_store, json.dumps(doc).encode())
    assert table_counts(fuzz_store.engine) == counts


@FUZZ
@given(version=json_values | st.integers(min_value=-(2**70), max_value=2**70))
def test_unknown_versions(fuzz_store: SessionStore, version: Any) -> None:
    doc = valid_document()
    doc["version"] = version
    counts = table_counts(fuzz_store.engine)
    if version == 1 and type(version) is int:
        assert_all_or_nothing(fuzz_store, json.dumps(doc).encode())
        return
    with pytest.raises(SessionFileError, match=r"^version: "):
        import_session(fuzz_store, json.dumps(doc).encode())
    assert table_counts(fuzz_store.engine) == counts


def test_a_newer_version_says_which_version_this_build_reads(fuzz_store: SessionStore) -> None:
    doc = valid_document()
    doc["version"] = 7
    with pytest.raises(SessionFileError) as info:
        import_session(fuzz_store, json.dumps(doc).encode())
    assert str(info.value) == (
        "version: this is a newer version (7) of the sparrow.session format; this build of Sparrow reads version 1 "
        "(upgrade Sparrow to import it)"
    )
