"""Every public function of ``agent_core.experiments`` that takes a store, found by introspection, called as a
non-owner and as a share-link viewer: datasets, experiments, their results and runs are their owner's alone.

A new function fails ``test_every_experiment_function_has_a_probe`` until it gets a row in ``PROBES``. Expectations
as in ``test_store_walk``: ``refused`` (a not-found error, ``ReadOnly``) or ``clean`` (nothing of Alice's in the
answer). Afterwards Alice's datasets, experiments and results must be exactly as before.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest

import agent_core.experiments as experiments_package
from agent_core.experiments import (
    DatasetItem,
    DatasetNotFound,
    ExperimentInfo,
    ExperimentNotFound,
    ExperimentRunner,
    RunConfig,
    create_dataset,
    create_experiment,
    datasets,
    example,
    parse_dataset,
    records,
    results,
    runner,
    scoring,
)
from agent_core.experiments.datasets import list_datasets
from agent_core.experiments.example import rule_model
from agent_core.experiments.records import finished_units, get_experiment, list_experiments
from agent_core.experiments.results import unit_results
from agent_core.experiments.runner import start_in_background
from agent_core.experiments.scoring import RunFacts
from agent_core.store import SessionStore
from tests.access.test_store_walk import ALICE, ALICE_IDS, BOB, MARK, REFUSALS, Expect

CONFIGS = [RunConfig(name="react", model="rules", protocol="react")]
ITEM = DatasetItem(id="bob-1", question="What is 2 + 2?", expect=[{"number": 4}])
FACTS = RunFacts("4", "completed", 1, (), 0, 0, 0, 1.0, None)
REFUSED = (*REFUSALS, DatasetNotFound, ExperimentNotFound)


@dataclass
class World:
    """Alice's dataset, experiment (run once) and one of its units; the share link of her other session."""

    url: str
    dataset: str
    dataset_name: str
    experiment: ExperimentInfo
    key: tuple[str, int, int, int]
    item_session: str
    item_run: str
    token: str


@dataclass(frozen=True)
class Probe:
    """How to call one function, and what Bob and a share-link viewer must get."""

    call: Callable[[SessionStore, World], Any]
    bob: Expect = "refused"
    viewer: Expect = "refused"


def _in_background(s: SessionStore, w: World) -> Any:
    """Start Alice's experiment in the background and wait: its refusal comes back as the job's error."""
    job = start_in_background(s, w.experiment.id, rule_model)
    job.wait(30)
    if job.error and job.error.startswith(("ExperimentNotFound", "ReadOnly", "DatasetNotFound")):
        raise ExperimentNotFound(job.error)
    return job.progress


def _judge(s: SessionStore, w: World) -> Any:
    return scoring.recorded_judge(s, w.item_session, rule_model(CONFIGS[0]))("Is it right?", ITEM, FACTS)


PARSED = b'{"id": "b1", "question": "What is 3 + 3?", "expect": [{"number": 6}]}\n'
PROBES: dict[str, Probe] = {
    "add_items": Probe(lambda s, w: datasets.add_items(s, w.dataset, [ITEM])),
    "config_summaries": Probe(lambda s, w: results.config_summaries(s, w.experiment, [])),
    "create_dataset": Probe(lambda s, w: create_dataset(s, "Bob's set", [ITEM]), "clean"),
    "create_experiment": Probe(lambda s, w: create_experiment(s, w.dataset, CONFIGS)),
    "dataset_items": Probe(lambda s, w: datasets.dataset_items(s, w.dataset)),
    "delete_experiment": Probe(lambda s, w: records.delete_experiment(s, w.experiment.id)),
    "enqueue_experiment": Probe(lambda s, w: runner.enqueue_experiment(s, w.url, w.experiment.id)),
    "ensure_example": Probe(lambda s, w: example.ensure_example(s), "clean"),
    "experiment_session_ids": Probe(lambda s, w: records.experiment_session_ids(s), "clean", "clean"),
    "finish_unit": Probe(lambda s, w: records.finish_unit(s, w.key, {"state": "error", "failure": "taken"})),
    "finished_units": Probe(lambda s, w: finished_units(s, w.experiment.id)),
    "get_dataset": Probe(lambda s, w: datasets.get_dataset(s, w.dataset_name)),
    "get_experiment": Probe(lambda s, w: get_experiment(s, w.experiment.id)),
    "import_dataset": Probe(lambda s, w: datasets.import_dataset(s, parse_dataset(PARSED, "jsonl")), "clean"),
    "item_from_turn": Probe(lambda s, w: datasets.item_from_turn(s, w.item_session, w.item_run)),
    "list_datasets": Probe(lambda s, w: list_datasets(s), "clean", "clean"),
    "list_experiments": Probe(lambda s, w: list_experiments(s), "clean", "clean"),
    "record_judge": Probe(lambda s, w: records.record_judge(s, w.experiment.id, CONFIGS[0])),
    "recorded_judge": Probe(_judge),
    "set_status": Probe(lambda s, w: records.set_status(s, w.experiment.id, "cancelled")),
    "start_in_background": Probe(_in_background),
    "start_unit": Probe(lambda s, w: records.start_unit(s, w.key, w.item_session, "bob")),
    "unit_results": Probe(lambda s, w: unit_results(s, w.experiment.id)),
    "writable": Probe(lambda s, w: records.writable(s, w.experiment.id)),
}
"""One probe per public function of agent_core.experiments that takes a store."""


def outcome(call: Callable[[], Any]) -> tuple[Expect, Any]:
    try:
        return "clean", call()
    except REFUSED as exc:
        return "refused", exc


def store_functions() -> dict[str, str]:
    """Every public function defined in agent_core.experiments that takes a ``store``: name -> module."""
    found = {}
    for info in pkgutil.iter_modules(experiments_package.__path__):
        module = importlib.import_module(f"{experiments_package.__name__}.{info.name}")
        for name, function in inspect.getmembers(module, inspect.isfunction):
            takes_store = "store" in inspect.signature(function).parameters
            if function.__module__ == module.__name__ and not name.startswith("_") and takes_store:
                found[name] = module.__name__
    return found


def test_every_experiment_function_has_a_probe() -> None:
    found = store_functions()
    assert len(found) >= 20
    assert sorted(set(found) - set(PROBES)) == [], "give each new function that takes a store a probe"
    assert sorted(set(PROBES) - set(found)) == []


@pytest.fixture
def world(file_db_url: str) -> Iterator[tuple[SessionStore, World]]:
    store = SessionStore.open(file_db_url)
    alice = store.acting_as(ALICE)
    items = [
        DatasetItem(id=f"a-{n}", question=f"What is {n} + {n}? {MARK}", expect=[{"number": 2 * n}]) for n in (1, 2)
    ]
    dataset = create_dataset(alice, f"set {MARK}", items)
    experiment = create_experiment(alice, dataset.id, CONFIGS, name=f"exp {MARK}")
    ExperimentRunner(alice, experiment.id, model_factory=rule_model).run()
    unit = unit_results(alice, experiment.id)[0]
    shared = alice.sessions.create(title="Shared demo")
    token, _ = alice.shares.create(shared.id, allow_anonymous=True)
    key = (experiment.id, unit.position, unit.config_index, unit.repeat)
    assert unit.session_id and unit.run_id
    yield store, World(file_db_url, dataset.id, dataset.name, experiment, key, unit.session_id, unit.run_id, token)
    store.close()


def alice_state(store: SessionStore, w: World) -> Any:
    alice = store.acting_as(ALICE)
    datasets = [(d.id, d.version, d.item_count) for d in list_datasets(alice)]
    mine = [(e.id, e.status, e.finished_at) for e in list_experiments(alice)]
    units = [
        (u.position, u.state, u.passed, u.failure, u.session_id, u.run_id) for u in unit_results(alice, w.experiment.id)
    ]
    return datasets, mine, units, len(alice.log.events(w.item_session))


def walk(store: SessionStore, w: World, role: str) -> list[str]:
    """Each probe's outcome against its expectation for ``role``; the mismatches and leaks."""
    wrong = []
    for name, probe in sorted(PROBES.items()):
        got, value = outcome(lambda p=probe: p.call(store, w))
        expected = getattr(probe, role)
        shown = repr(value)
        if got != expected:
            wrong.append(f"{name}: {got} ({shown:.160}), expected {expected}")
        elif got == "clean" and any(x in shown for x in (MARK, w.experiment.id, w.dataset, w.item_session)):
            wrong.append(f"{name}: answered with Alice's data: {shown:.200}")
        elif got == "clean" and [i for i in ALICE_IDS if i in shown]:
            wrong.append(f"{name}: named Alice: {shown:.200}")
    return wrong


def test_a_non_owner_reaches_no_dataset_experiment_or_result_of_alices(world: tuple[SessionStore, World]) -> None:
    store, w = world
    before = alice_state(store, w)
    assert walk(store.acting_as(BOB), w, "bob") == []
    assert alice_state(store, w) == before


def test_a_share_link_viewer_reaches_no_experiment_and_writes_nothing(world: tuple[SessionStore, World]) -> None:
    store, w = world
    before = alice_state(store, w)
    viewer = store.acting_as(store.shares.open(w.token).actor())
    assert walk(viewer, w, "viewer") == []
    assert alice_state(store, w) == before
