"""The shipped example sessions: genuine event logs that match a fresh build, import cleanly, stay labelled."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_core.cli import main
from agent_core.examples import EXAMPLE_KEY, EXAMPLES, example, example_name, open_example, split_examples
from agent_core.examples.build import MODEL_NAME, build_example, normalised
from agent_core.store import SessionStore, import_session
from agent_core.views.transcript import Transcript


@pytest.fixture
def store() -> SessionStore:
    """An in-memory store."""
    return SessionStore.open("sqlite://")


@pytest.mark.parametrize("item", EXAMPLES, ids=lambda e: e.name)
def test_the_shipped_file_is_what_a_fresh_build_makes(item) -> None:  # type: ignore[no-untyped-def]
    assert normalised(item.path.read_bytes()) == normalised(build_example(item, pace=0))


def test_normalised_still_sees_a_changed_reply() -> None:
    item = example("dates")
    document = json.loads(item.path.read_bytes())
    document["events"][-1]["final_answer"] = "something else"
    assert normalised(json.dumps(document).encode()) != normalised(item.path.read_bytes())


@pytest.mark.parametrize("item", EXAMPLES, ids=lambda e: e.name)
def test_each_example_imports_as_a_labelled_session_of_completed_runs(store: SessionStore, item) -> None:  # type: ignore[no-untyped-def]
    info = import_session(store, item.path.read_bytes())
    assert example_name(info) == item.name and info.config.settings[EXAMPLE_KEY] == item.name
    assert info.config.model == MODEL_NAME and info.config.protocol == item.protocol and info.title == item.title
    turns = Transcript.from_events(store.log.events(info.id)).turns
    assert turns and all(turn.status == "completed" and turn.answer for turn in turns)


def _steps(name: str) -> list[list[tuple[str, str | None]]]:
    """Per step of the example's first turn: (tool, error) of each call, then ("format", error) if any."""
    turn = Transcript.from_events(_events(name)).turns[0]
    shape = []
    for step in turn.steps:
        calls: list[tuple[str, str | None]] = [(a.tool, a.error and a.error.split(":")[0]) for a in step.actions]
        shape.append(calls + ([("format", "error")] if step.format_error else []))
    return shape


def _events(name: str):  # type: ignore[no-untyped-def]
    store = SessionStore.open("sqlite://")
    return store.log.events(import_session(store, example(name).path.read_bytes()).id)


def test_what_each_example_shows() -> None:
    assert _steps("dates") == [[("date_calculator", None)], [("calculator", None)], []]
    assert _steps("parallel") == [[("calculator", None), ("date_calculator", None), ("date_calculator", None)], []]
    assert _steps("recovery") == [
        [("format", "error")],
        [("date_calculator", None)],
        [("calculator", "calculator")],
        [("calculator", None)],
        [],
    ]
    chinese = Transcript.from_events(_events("chinese")).turns[0]
    assert chinese.question.startswith("2024年5月20日") and "星期四" in (chinese.answer or "")
    assert len(Transcript.from_events(_events("dates")).turns) == 2


def test_open_example_imports_once_and_examples_stay_apart(store: SessionStore) -> None:
    own = store.sessions.create(title="mine")
    first = open_example(store, "recovery")
    assert open_example(store, "recovery").id == first.id
    assert [s.id for s in store.sessions.list()].count(first.id) == 1
    mine, examples = split_examples(store.sessions.list())
    assert [s.id for s in mine] == [own.id] and [s.id for s in examples] == [first.id]
    with pytest.raises(KeyError, match="no example 'nope'; the examples are: dates"):
        open_example(store, "nope")


def test_cli_lists_and_imports_examples(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = f"sqlite:///{tmp_path / 'cli.db'}"
    assert main(["sessions", "examples", "--db", db]) == 0
    listing = capsys.readouterr().out
    assert all(e.name in listing and e.title in listing for e in EXAMPLES) and "not imported yet" in listing
    assert main(["sessions", "examples", "parallel", "--db", db]) == 0
    session_id = capsys.readouterr().out.strip()
    assert example_name(SessionStore.open(db).sessions.get(session_id)) == "parallel"
    assert main(["sessions", "examples", "--db", db]) == 0
    assert f"session {session_id}" in capsys.readouterr().out
    assert main(["sessions", "examples", "nope", "--db", db]) == 2
    assert "no example 'nope'" in capsys.readouterr().err


def test_sessions_list_marks_examples(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = f"sqlite:///{tmp_path / 'cli.db'}"
    store = SessionStore.open(db)
    mine = store.sessions.create(title="mine")
    example_id = open_example(store, "chinese").id
    assert main(["sessions", "list", "--db", db]) == 0
    lines = {line.split()[0]: line for line in capsys.readouterr().out.splitlines()}
    assert lines[example_id].endswith("[example: scripted, not a live model]")
    assert not lines[mine.id].endswith("]")
    assert main(["sessions", "list", "--json", "--db", db]) == 0
    listed = {s["id"]: s["example"] for s in json.loads(capsys.readouterr().out)}
    assert listed == {mine.id: None, example_id: "chinese"}
