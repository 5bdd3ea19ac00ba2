"""pass@k and consistency with repeats: the unbiased estimator per item, averaged; shown by ``eval show``, in the JSON
export and on the page's summary table."""

from __future__ import annotations

import itertools
import json
import threading
from pathlib import Path

import pytest

from agent_core.cli.eval_cmd import show_text
from agent_core.experiments import DatasetItem, ExperimentRunner, RunConfig, create_dataset, create_experiment
from agent_core.experiments.example import rule_model
from agent_core.experiments.records import get_experiment
from agent_core.experiments.results import config_summaries, pass_at_k, unit_results
from agent_core.models.chat import ChatModel
from agent_core.testing import FunctionModel, Reply
from sparrow_ui.panels.experiment_views import summary_frame
from tests.experiments.helpers import file_store


def brute_force(n: int, c: int, k: int) -> float:
    """The share of k-subsets of n samples (c of them passing) holding at least one pass."""
    samples = [True] * c + [False] * (n - c)
    subsets = list(itertools.combinations(samples, k))
    return sum(1 for s in subsets if any(s)) / len(subsets)


@pytest.mark.parametrize(("n", "c", "k"), [(5, 0, 2), (5, 1, 2), (5, 2, 3), (6, 3, 1), (4, 4, 4), (10, 3, 5)])
def test_pass_at_k_is_the_unbiased_estimator(n: int, c: int, k: int) -> None:
    assert pass_at_k(n, c, k) == pytest.approx(brute_force(n, c, k))
    assert pass_at_k(n, c, 1) == pytest.approx(c / n)


class Flaky:
    """The rule model, except that "What is 2 + 2?" gets a wrong answer on every second attempt."""

    def __init__(self) -> None:
        self.attempts = 0
        self.lock = threading.Lock()

    def __call__(self, config: RunConfig) -> ChatModel:
        inner = rule_model(config)

        def reply(messages: list[dict[str, object]], request: object) -> Reply:
            if "2 + 2" in str(messages[-1]["content"]) and "Observation" not in str(messages[-1]["content"]):
                with self.lock:
                    self.attempts += 1
                    wrong = self.attempts % 2 == 0
                if wrong:
                    return "Thought: guess.\nFinal Answer: 5"
            return inner.fn(messages, request)  # type: ignore[attr-defined]

        return FunctionModel(reply, name=config.model)


def test_repeats_show_pass_at_k_and_consistency_everywhere(tmp_path: Path) -> None:
    store = file_store(tmp_path)
    items = [DatasetItem(id=f"add-{n}", question=f"What is {n} + {n}?", expect={"number": 2 * n}) for n in (1, 2)]
    create_dataset(store, "adds", items)
    info = create_experiment(store, "adds", [RunConfig(name="react", model="rules")], repeats=2, concurrency=1)
    ExperimentRunner(store, info.id, model_factory=Flaky()).run()
    info = get_experiment(store, info.id)
    (summary,) = config_summaries(store, info, unit_results(store, info.id))
    # add-1 passes twice; add-2 once of two: pass@2 = (1 + 1) / 2, consistency 1 of 2 items, pass rate 3/4
    assert (summary.passed, summary.units, summary.k) == (3, 4, 2)
    assert (summary.pass_at_k, summary.consistency) == (1.0, 0.5)
    shown = show_text(store, info.id, as_json=False)
    header = shown.splitlines()[2]
    assert "pass@2" in header and "consistency" in header and "100%" in shown and "50%" in shown
    (exported,) = json.loads(show_text(store, info.id, as_json=True))["summary"]
    assert (exported["k"], exported["pass_at_k"], exported["consistency"]) == (2, 1.0, 0.5)
    frame = summary_frame([summary])
    assert (frame["pass@2"][0], frame["Consistency"][0]) == ("100%", "50%")


def test_one_repeat_shows_no_pass_at_k(tmp_path: Path) -> None:
    store = file_store(tmp_path)
    create_dataset(store, "adds", [DatasetItem(id="a", question="What is 1 + 1?", expect={"number": 2})])
    info = create_experiment(store, "adds", [RunConfig(name="react", model="rules")])
    ExperimentRunner(store, info.id, model_factory=rule_model).run()
    (summary,) = config_summaries(store, info, unit_results(store, info.id))
    assert (summary.k, summary.pass_at_k, summary.consistency) == (1, None, None)
    assert "pass@" not in show_text(store, info.id, as_json=False)
    assert list(summary_frame([summary]).columns)[:3] == ["Configuration", "Pass rate", "95% interval"]
