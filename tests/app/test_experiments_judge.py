"""The Experiments page shows the judge model recorded with an experiment, and pass@k with repeats."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from agent_core.experiments import DatasetItem, ExperimentRunner, RunConfig, create_dataset, create_experiment
from agent_core.experiments.example import rule_model
from agent_core.store import SessionStore

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def test_the_page_shows_the_judge_and_pass_at_k(store: SessionStore) -> None:
    create_dataset(store, "one", [DatasetItem(id="a", question="What is 1 + 1?", expect={"number": 2})])
    judge = RunConfig(name="judge", model="grader-9", base_url="https://judge.example/v1")
    info = create_experiment(store, "one", [RunConfig(name="react", model="rules")], repeats=3, judge=judge)
    ExperimentRunner(store, info.id, model_factory=rule_model).run()
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    at.switch_page("pages/experiments.py").run()
    assert not at.exception, at.exception
    assert any("`grader-9`" in c.value and "judge.example" in c.value for c in at.caption)
    (row,) = at.dataframe[1].value.to_dict("records")
    assert (row["Pass rate"], row["pass@3"], row["Consistency"]) == ("3/3 (100%)", "100%", "100%")
