"""The runner: every unit an ordinary recorded run linked to its experiment; bounded concurrency; resume after a
crash or a Stop without re-running finished units; a 429 backs off instead of failing; a broken scorer is one error."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from sqlmodel import Session, select

from agent_core.events import RunFinished
from agent_core.experiments import DatasetItem, ExperimentRunner, RunConfig, create_dataset, create_experiment, scorer
from agent_core.experiments.example import rule_model
from agent_core.experiments.records import get_experiment, start_unit
from agent_core.experiments.results import config_summaries, unit_results
from agent_core.experiments.runner import Pace
from agent_core.experiments.tables import ResultRow
from agent_core.models import ModelError
from agent_core.models.chat import ChatModel
from agent_core.store import SessionStore
from agent_core.testing import FunctionModel, Reply
from tests.experiments.helpers import file_store

ITEMS = [
    DatasetItem(
        id=f"add-{n}", question=f"What is {n} + {n}?", expect=[{"number": 2 * n}, {"tool_called": "calculator"}]
    )
    for n in range(1, 7)
]
CONFIGS = [
    RunConfig(name="react", model="rules", protocol="react"),
    RunConfig(name="tools", model="rules", protocol="tools"),
]


class CountingModels:
    """Model factory around the rule model that counts calls and the most calls in flight at once."""

    def __init__(self, delay: float = 0.0) -> None:
        self.calls = 0
        self.in_flight = 0
        self.most = 0
        self.delay = delay
        self.lock = threading.Lock()

    def __call__(self, config: RunConfig) -> ChatModel:
        inner = rule_model(config)

        def reply(messages: list[dict[str, object]], request: object) -> Reply:
            with self.lock:
                self.calls += 1
                self.in_flight += 1
                self.most = max(self.most, self.in_flight)
            try:
                time.sleep(self.delay)
                return inner.fn(messages, request)  # type: ignore[attr-defined]
            finally:
                with self.lock:
                    self.in_flight -= 1

        return FunctionModel(reply, name=config.model)


def experiment(store: SessionStore, *, concurrency: int = 4) -> str:
    create_dataset(store, "adds", ITEMS)
    return create_experiment(store, "adds", CONFIGS, concurrency=concurrency).id


def test_every_unit_is_a_recorded_run_in_its_own_session(tmp_path: Path) -> None:
    store = file_store(tmp_path)
    experiment_id = experiment(store, concurrency=3)
    models = CountingModels(delay=0.02)
    progress = ExperimentRunner(store, experiment_id, model_factory=models).run()
    assert (progress.done, progress.passed, progress.total) == (12, 12, 12)
    assert 1 < models.most <= 3 and models.calls == 24  # a tool call and an answer per unit
    units = unit_results(store, experiment_id)
    assert len({u.session_id for u in units}) == 12 and all(u.steps == 2 and u.tokens for u in units)
    first = units[0]
    events = store.log.events(str(first.session_id))
    finished = [e for e in events if isinstance(e, RunFinished)]
    assert [e.run_id for e in finished] == [first.run_id] and finished[0].final_answer == "The result is 2."
    assert store.sessions.get(str(first.session_id)).title == "adds v1 #1 · add-1 · react"
    assert get_experiment(store, experiment_id).status == "finished"
    summaries = config_summaries(store, get_experiment(store, experiment_id), units)
    assert [(s.label, s.passed, s.units, s.interval is not None) for s in summaries] == [
        ("react", 6, 6, True),
        ("tools", 6, 6, True),
    ]


def test_a_crash_or_a_stop_resumes_without_running_finished_units_again(tmp_path: Path) -> None:
    store = file_store(tmp_path)
    experiment_id = experiment(store, concurrency=2)
    models = CountingModels()
    ExperimentRunner(store, experiment_id, model_factory=models).run(units=[(0, 0, 0), (1, 0, 0), (2, 1, 0)])
    assert get_experiment(store, experiment_id).status == "pending" and models.calls == 6
    crashed = store.sessions.create()  # a unit a dead process had started: claimed, never scored
    start_unit(store, (experiment_id, 3, 0, 0), crashed.id, "dead:1")
    runner = ExperimentRunner(store, experiment_id, model_factory=models)
    stop_after_two = runner.cancel
    runner.on_progress = lambda p: stop_after_two.cancel() if p.done >= 5 else None
    stopped = runner.run()
    assert get_experiment(store, experiment_id).status == "cancelled" and stopped.done < 12
    final = ExperimentRunner(store, experiment_id, model_factory=models).run()
    assert (final.done, final.passed) == (12, 12) and final.resumed >= 5
    with Session(store.engine) as db:
        rows = db.exec(select(ResultRow).where(ResultRow.experiment_id == experiment_id)).all()
    assert len(rows) == 12 and {r.state for r in rows} == {"done"}
    assert next(r for r in rows if (r.position, r.config_index) == (3, 0)).session_id != crashed.id
    finished_runs = sum(
        isinstance(e, RunFinished) and e.status == "completed"
        for r in rows
        for e in store.log.events(str(r.session_id))
    )
    assert finished_runs == 12  # no unit was answered twice in its own session


def test_a_429_slows_the_pace_and_the_item_still_passes(tmp_path: Path) -> None:
    store = file_store(tmp_path)
    create_dataset(store, "one", ITEMS[:1])
    experiment_id = create_experiment(store, "one", CONFIGS[:1]).id
    limited = {"left": 2}

    def factory(config: RunConfig) -> ChatModel:
        inner = rule_model(config)

        def reply(messages: list[dict[str, object]], request: object) -> Reply:
            if limited["left"] > 0:
                limited["left"] -= 1
                return Reply(error=ModelError("rate_limit", "api kept rate-limiting the request (429) after retries."))
            return inner.fn(messages, request)  # type: ignore[attr-defined]

        return FunctionModel(reply, name=config.model)

    pace = Pace(base_s=0.05)
    started = time.monotonic()
    progress = ExperimentRunner(store, experiment_id, model_factory=factory, pace=pace).run()
    assert (progress.done, progress.passed, progress.errors) == (1, 1, 0)
    assert time.monotonic() - started >= 0.15  # waited 0.05 s, then 0.1 s
    assert unit_results(store, experiment_id)[0].passed


def test_a_scorer_that_raises_is_an_error_on_its_item_only(tmp_path: Path) -> None:
    @scorer(name="explodes")
    def explodes(ctx: object) -> bool:
        raise RuntimeError("boom")

    store = file_store(tmp_path)
    items = [ITEMS[0], DatasetItem(id="bad", question="What is 2 + 2?", expect={"scorer": "explodes"})]
    create_dataset(store, "mixed", items)
    experiment_id = create_experiment(store, "mixed", CONFIGS[:1]).id
    ExperimentRunner(store, experiment_id, model_factory=CountingModels()).run()
    ok, bad = unit_results(store, experiment_id)
    assert ok.passed and not bad.passed and bad.state == "done"
    assert bad.scores[0]["error"] and bad.scores[0]["reason"] == "the scorer explodes raised RuntimeError: boom"
    assert get_experiment(store, experiment_id).status == "finished"


def test_a_judge_check_is_a_second_recorded_run_in_the_items_session(tmp_path: Path) -> None:
    store = file_store(tmp_path)
    item = DatasetItem(id="judged", question="What is 2 + 2?", answer="4", expect={"judge": "The sum must be right."})
    create_dataset(store, "judged", [item])
    experiment_id = create_experiment(store, "judged", CONFIGS[:1]).id
    judge = FunctionModel(lambda messages, request: "Thought: it says 4.\nFinal Answer: PASS [0.9]: the sum is 4.")
    ExperimentRunner(store, experiment_id, model_factory=CountingModels(), judge_model=judge).run()
    (unit,) = unit_results(store, experiment_id)
    score = unit.scores[0]
    assert (unit.passed, score["value"], score["reason"]) == (True, 0.9, "the sum is 4.")
    runs = [e.run_id for e in store.log.events(str(unit.session_id)) if isinstance(e, RunFinished)]
    assert runs[0] == unit.run_id and score["judge_run"] == f"{unit.session_id}:{runs[1]}"


def test_one_cancelled_run_does_not_stop_the_experiment(tmp_path: Path) -> None:
    store = file_store(tmp_path)
    experiment_id = experiment(store, concurrency=1)
    models = CountingModels()

    def first_call_cancels(config: RunConfig) -> ChatModel:
        model = models(config)
        inner = model.fn  # type: ignore[attr-defined]

        def reply(messages: list[dict[str, object]], request: object) -> Reply:
            if models.calls == 0 and request.cancel is not None:  # type: ignore[attr-defined]
                request.cancel.cancel()  # what a lost claim's heartbeat does to its own run
            return inner(messages, request)

        return FunctionModel(reply, name=config.model)

    progress = ExperimentRunner(store, experiment_id, model_factory=first_call_cancels).run()
    assert get_experiment(store, experiment_id).status == "pending" and progress.done == 11
    assert ExperimentRunner(store, experiment_id, model_factory=models).run().done == 12
