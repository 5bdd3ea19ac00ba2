"""Datasets: JSONL, CSV and YAML files validated whole (one sentence per problem), versions, owners, export."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_core.engine.agent import Agent
from agent_core.experiments import (
    DatasetFileError,
    DatasetItem,
    DatasetNotFound,
    add_items,
    create_dataset,
    dataset_items,
    get_dataset,
    import_dataset,
    item_from_turn,
    list_datasets,
    parse_dataset,
    to_jsonl,
)
from agent_core.experiments.datasets import MAX_DATASET_BYTES
from agent_core.experiments.example import example_file
from agent_core.runtime.session_runs import run_in_session
from agent_core.store import Actor, SessionStore
from agent_core.testing import ScriptedModel
from tests.core.helpers import answer


def test_the_shipped_example_has_twenty_items_in_the_spirit_of_the_seeds() -> None:
    parsed = parse_dataset(example_file(), "jsonl")
    ids = [i.id for i in parsed.items]
    assert len(ids) == 20 and "weekday-150" in ids and "weekday-zh" in ids
    assert any("星期" in i.question for i in parsed.items)
    assert any(i.turns for i in parsed.items)


def test_jsonl_csv_and_yaml_give_the_same_items() -> None:
    jsonl = b'{"id": "a", "question": "What is 17 * 23?", "expect": {"contains": "391"}, "tags": ["x", "y"]}\n'
    csv = b'id,question,expect,tags,source\na,What is 17 * 23?,"{""contains"": ""391""}","x;y",seed\n'
    yaml = (
        b"name: mine\nitems:\n  - id: a\n    question: What is 17 * 23?\n"
        b"    expect: {contains: '391'}\n    tags: [x, y]\n"
    )
    from_jsonl, from_csv, from_yaml = (parse_dataset(d, k) for d, k in ((jsonl, "jsonl"), (csv, "csv"), (yaml, "yaml")))
    assert from_jsonl.items == from_yaml.items
    assert from_csv.items[0].model_copy(update={"metadata": {}}) == from_jsonl.items[0]
    assert from_csv.items[0].metadata == {"source": "seed"} and from_yaml.name == "mine"


def test_every_problem_is_one_sentence_naming_its_line_and_nothing_is_imported(tmp_path: Path) -> None:
    store = SessionStore.open(f"sqlite:///{tmp_path / 'd.db'}")
    data = (
        b'{"question": "ok", "answer": "fine"}\n'
        b"not json\n"
        b'{"question": ""}\n'
        b'{"question": "q", "expect": {"contains": "1", "regex": "2"}}\n'
        b'{"question": "q", "expect": {"regex": "("}}\n'
        b'{"question": "q", "answer": "a", "colour": "red"}\n'
    )
    with pytest.raises(DatasetFileError) as bad_json:
        parse_dataset(data, "jsonl")
    assert bad_json.value.problems == ["line 2: not valid JSON (Expecting value at column 1)"]
    with pytest.raises(DatasetFileError) as bad:
        parse_dataset(data.replace(b"not json\n", b""), "jsonl")
    problems = bad.value.problems
    assert len(problems) == 4
    assert problems[0] == "line 2: question: String should have at least 1 character"
    assert problems[1].startswith("line 3: expect.0: a check names exactly one of exact, contains, regex")
    assert problems[1].endswith("(this one names contains, regex)")
    assert problems[2].startswith("line 4: expect.0: the regex '(' does not compile")
    assert problems[3] == "line 5: colour: Extra inputs are not permitted"
    assert list_datasets(store) == []


def test_size_and_duplicate_ids_are_refused() -> None:
    with pytest.raises(DatasetFileError, match="a dataset file is at most"):
        parse_dataset(b" " * (MAX_DATASET_BYTES + 1), "jsonl")
    with pytest.raises(DatasetFileError, match="the id 'a' is already used by line 1"):
        parse_dataset(
            b'{"id": "a", "question": "q", "answer": "x"}\n{"id": "a", "question": "r", "answer": "y"}', "jsonl"
        )
    with pytest.raises(DatasetFileError, match="holds no items"):
        parse_dataset(b"\n\n", "jsonl")
    with pytest.raises(DatasetFileError, match="needs a 'question' column"):
        parse_dataset(b"q,a\n1,2\n", "csv")


def test_versions_owners_export_and_a_turn_as_an_item(tmp_path: Path) -> None:
    store = SessionStore.open(f"sqlite:///{tmp_path / 'd.db'}")
    alice, bob = (store.acting_as(Actor.user(name)) for name in ("alice", "bob"))
    first = import_dataset(alice, parse_dataset(example_file(), "jsonl"), "seeds")
    second = add_items(alice, "seeds", [DatasetItem(question="extra?", answer="yes")])
    assert (first.version, second.version, second.item_count) == (1, 2, 21)
    assert get_dataset(alice, "seeds").id == second.id and dataset_items(alice, first.id)[-1].id == "weekday-zh"
    with pytest.raises(DatasetNotFound):
        get_dataset(bob, first.id)
    assert list_datasets(bob) == [] and len(list_datasets(store)) == 2  # the local admin sees all
    exported = to_jsonl(dataset_items(alice, second.id))
    assert parse_dataset(exported.encode(), "jsonl").items == tuple(dataset_items(alice, second.id))
    session = alice.sessions.create()
    model = ScriptedModel([answer("easy", "Hello!"), answer("sure", "Paris.")])
    agent = Agent(model, [])
    for question in ("Hi", "Capital of France?"):
        list(run_in_session(alice, session.id, agent, question))
    run_id = [e.run_id for e in alice.log.events(session.id)][-1]
    item = item_from_turn(alice, session.id, run_id)
    assert (item.question, item.answer, [(t.question, t.answer) for t in item.turns]) == (
        "Capital of France?",
        "Paris.",
        [("Hi", "Hello!")],
    )
    assert create_dataset(alice, "from chat", [item]).item_count == 1
