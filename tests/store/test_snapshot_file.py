"""The session file: byte-stable export, round trip to another database, strict and atomic import."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agent_core.engine.conversation import finished_turns
from agent_core.runtime.sessions import agent_for_session, config_from_agent, run_in_session
from agent_core.store import SessionFileError, SessionStore, export_filename, export_session, import_session
from agent_core.testing import FunctionModel
from agent_core.views.transcript import Transcript
from tests.store.helpers import arithmetic, arithmetic_agent, every_event_type, run, table_counts

NAN = float("nan")


@pytest.fixture
def session_id(store: SessionStore) -> str:
    """A session with two runs and a snapshot between them."""
    agent = arithmetic_agent()
    session = store.sessions.create(config_from_agent(agent))
    run(store, session.id, agent, "What is 6*7?")
    store.snapshots.save(session.id, "first answer")
    run(store, session.id, agent, "Add 10 to that")
    return session.id


def document(store: SessionStore, session_id: str) -> dict[str, Any]:
    """The exported file, parsed."""
    return json.loads(export_session(store, session_id))


def test_two_exports_are_byte_identical_utf8_with_a_stable_layout(store: SessionStore, session_id: str) -> None:
    data = export_session(store, session_id)
    assert data == export_session(store, session_id)
    parsed = json.loads(data.decode("utf-8"))
    assert list(parsed) == ["format", "version", "session", "snapshots", "events"]
    assert (parsed["format"], parsed["version"]) == ("sparrow.session", 1)
    assert list(parsed["session"]) == ["id", "title", "created_at", "updated_at", "parent_id", "forked_from", "config"]
    assert [e["seq"] for e in parsed["events"]] == list(range(1, len(store.log.events(session_id)) + 1))
    assert [{k: v for k, v in e.items() if k != "seq"} for e in parsed["events"]] == [
        e.to_dict() for e in store.log.events(session_id)
    ]
    lines = data.decode().splitlines()
    start = lines.index('  "events": [') + 1
    one_per_line = [json.loads(line.strip().rstrip(",")) for line in lines[start : start + len(parsed["events"])]]
    assert one_per_line == parsed["events"] and lines[start + len(parsed["events"]) :] == ["  ]", "}"]


def test_round_trip_to_another_database_and_continue(store: SessionStore, session_id: str) -> None:
    data = export_session(store, session_id)
    other = SessionStore.open("sqlite://")
    imported = import_session(other, data)
    assert imported.id == session_id  # free in the other database, so kept
    assert other.log.events(imported.id) == store.log.events(session_id)
    assert export_session(other, imported.id) == data
    assert [s.name for s in other.snapshots.list(imported.id)] == ["first answer"]
    assert finished_turns(Transcript.from_events(other.log.events(imported.id)).turns) == finished_turns(
        Transcript.from_events(store.log.events(session_id)).turns
    )

    agent = agent_for_session(other, imported.id, FunctionModel(arithmetic))
    events = list(run_in_session(other, imported.id, agent, "Add 100 to that"))
    assert events[-1].final_answer == "152"  # type: ignore[attr-defined]
    assert other.log.events(imported.id)[: store.sessions.get(session_id).last_seq] == store.log.events(session_id)
    other.close()


def test_importing_into_the_same_database_gets_fresh_ids(store: SessionStore, session_id: str) -> None:
    data = export_session(store, session_id)
    before = export_session(store, session_id)
    copy = import_session(store, data)
    assert copy.id != session_id
    assert store.log.events(copy.id) == store.log.events(session_id)
    original_snapshot, copied_snapshot = store.snapshots.list(session_id)[0], store.snapshots.list(copy.id)[0]
    assert copied_snapshot.id != original_snapshot.id and copied_snapshot.name == original_snapshot.name
    assert store.snapshots.events(copied_snapshot.id) == store.snapshots.events(original_snapshot.id)
    assert export_session(store, session_id) == before


def test_export_filename(store: SessionStore) -> None:
    session = store.sessions.create(title="What is 6*7? / notes")
    assert export_filename(session) == f"What-is-6-7-notes-{session.id}.sparrow.json"


def corrupt(store: SessionStore, session_id: str, change: Any) -> bytes:
    """The session's file after ``change(document)``."""
    doc = document(store, session_id)
    change(doc)
    return json.dumps(doc).encode()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d["events"][12].update(type="foo"), "events[12].type: unknown event type 'foo'"),
        (lambda d: d.update(version=2), "version 1 (upgrade Sparrow"),
        (lambda d: d.update(version="1"), "version: must be an integer, got '1'"),
        (lambda d: d.update(format="other"), "format: expected 'sparrow.session', got 'other'"),
        (lambda d: d["events"][3].update(seq=3), "events[3].seq: duplicate sequence number 3"),
        (lambda d: d["events"][3].update(seq=1), "events[3].seq: sequence number out of order: 1"),
        (lambda d: d["events"][0].pop("seq"), "events[0].seq: must be a positive integer, got null"),
        (lambda d: d["events"][2].update(step="two"), "events[2].step: Input should be a valid integer"),
        (lambda d: d["events"][0].pop("question"), "events[0].question: Field required"),
        (lambda d: d["session"].update(title=5), "session.title: Input should be a valid string"),
        (lambda d: d["session"].update(title="t" * 201), "session.title: String should have at most 200"),
        (lambda d: d["session"].update(id="../../etc"), "session.id: String should match pattern"),
        (lambda d: d["session"].pop("created_at"), "session.created_at: Field required"),
        (lambda d: d["snapshots"][0].update(upto_seq=10**6), "snapshots[0].upto_seq: 1000000 is after the last"),
        (lambda d: d["snapshots"].append(dict(d["snapshots"][0])), "snapshots[1].id: duplicate snapshot id"),
        (lambda d: d.update(extra=1), "extra: Extra inputs are not permitted"),
        (lambda d: d.update(events={}), "events: Input should be a valid list"),
    ],
)
def test_invalid_files_name_the_first_problem_and_write_nothing(
    store: SessionStore, session_id: str, change: Any, message: str
) -> None:
    data = corrupt(store, session_id, change)
    counts = table_counts(store.engine)
    with pytest.raises(SessionFileError) as info:
        import_session(store, data)
    assert message in str(info.value)
    assert "\n" not in str(info.value)
    assert table_counts(store.engine) == counts


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "not valid JSON: Expecting value (line 1, column 1)"),
        (b'{"format": "sparrow.session", "version": 1, "session": {', "not valid JSON"),
        (b"\xff\xfe{}", "not UTF-8 text (byte 0)"),
        (b"[1, 2]", "the document must be a JSON object, got an array"),
        (b'{"format": "sparrow.session", "version": NaN}', "NaN is not a number JSON allows"),
        (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
    ],
)
def test_unreadable_files_are_refused(store: SessionStore, data: bytes, message: str) -> None:
    with pytest.raises(SessionFileError, match=message.replace("(", r"\(").replace(")", r"\)")):
        import_session(store, data)
    assert table_counts(store.engine)["sessions"] == 0


def test_lone_surrogates_and_nan_are_refused_but_the_words_are_fine(store: SessionStore, session_id: str) -> None:
    def question(value: str) -> Any:
        return lambda d: d["events"][0].update(question=value)

    with pytest.raises(SessionFileError, match="unpaired UTF-16 surrogate"):
        import_session(store, corrupt(store, session_id, question("bad \ud800 half")))
    with pytest.raises(SessionFileError, match="NaN is not a number JSON allows"):
        import_session(store, corrupt(store, session_id, lambda d: d["session"]["config"]["settings"].update(x=NAN)))
    fine = import_session(store, corrupt(store, session_id, question("NaN, Infinity and 😀 \ud83d\ude00 are text")))
    assert store.log.events(fine.id)[0].question == "NaN, Infinity and 😀 😀 are text"  # type: ignore[attr-defined]


def test_the_size_limit_is_checked_before_parsing(store: SessionStore, session_id: str) -> None:
    data = export_session(store, session_id)
    with pytest.raises(SessionFileError, match=f"the file is {len(data):,} bytes; the limit is 100 bytes"):
        import_session(store, data, max_bytes=100)


def test_a_utf8_bom_and_a_str_are_accepted(store: SessionStore, session_id: str) -> None:
    data = export_session(store, session_id)
    assert import_session(store, b"\xef\xbb\xbf" + data).title == "What is 6*7?"
    assert store.log.events(import_session(store, data.decode()).id) == store.log.events(session_id)


def test_a_session_with_every_event_type_survives_the_file(store: SessionStore) -> None:
    session = store.sessions.create(title="all types")
    store.log.append(session.id, every_event_type())
    copy = import_session(store, export_session(store, session.id))
    assert store.log.events(copy.id) == every_event_type()
