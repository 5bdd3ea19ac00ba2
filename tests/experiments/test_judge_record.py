"""The judge model is recorded with the experiment's configurations (given, recorded at creation, or from
$SPARROW_JUDGE_MODEL) and shown by ``eval show`` and the JSON export; the worker path builds it from the record."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_core.cli import main
from agent_core.cli.eval_cmd import show_text
from agent_core.experiments import DatasetItem, ExperimentRunner, RunConfig, create_dataset, create_experiment
from agent_core.experiments.example import rule_model
from agent_core.experiments.records import get_experiment
from agent_core.experiments.results import unit_results
from agent_core.models.chat import ChatModel
from agent_core.testing import FakeOpenAIServer, FunctionModel
from agent_core.testing.rule_llm import rule_reply
from tests.experiments.helpers import file_store

JUDGED = DatasetItem(id="judged", question="What is 2 + 2?", answer="4", expect={"judge": "The sum must be right."})
VERDICT = "Thought: it says 4.\nFinal Answer: PASS: the sum is 4."


class Models:
    """The rule model for the items; a grader that always passes for the judge; records what it was asked for."""

    def __init__(self) -> None:
        self.asked: list[RunConfig] = []

    def __call__(self, config: RunConfig) -> ChatModel:
        self.asked.append(config)
        if config.name == "judge":
            return FunctionModel(lambda messages, request: VERDICT, name=config.model)
        return rule_model(config)


def test_a_judge_given_at_creation_is_recorded_built_from_the_record_and_shown(tmp_path: Path) -> None:
    store = file_store(tmp_path)
    create_dataset(store, "judged", [JUDGED])
    judge = RunConfig(name="judge", model="grader-1", base_url="http://judge.example/v1")
    info = create_experiment(store, "judged", [RunConfig(name="react", model="rules")], judge=judge)
    models = Models()
    ExperimentRunner(store, info.id, model_factory=models).run()  # as a worker does: no judge passed in
    assert [c.model for c in models.asked if c.name == "judge"] == ["grader-1"]
    (unit,) = unit_results(store, info.id)
    assert unit.passed and unit.scores[0]["reason"] == "the sum is 4."
    assert get_experiment(store, info.id).judge == judge
    assert show_text(store, info.id, as_json=False).splitlines()[2] == "judge: grader-1 at http://judge.example/v1"
    exported = json.loads(show_text(store, info.id, as_json=True))["experiment"]["judge"]
    assert (exported["model"], exported["base_url"]) == ("grader-1", "http://judge.example/v1")


def test_a_judge_passed_to_the_runner_or_named_by_the_environment_is_recorded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = file_store(tmp_path)
    create_dataset(store, "judged", [JUDGED])
    given = create_experiment(store, "judged", [RunConfig(name="react", model="rules")])
    grader = FunctionModel(lambda messages, request: VERDICT, name="grader-2")
    ExperimentRunner(store, given.id, model_factory=rule_model, judge_model=grader).run()
    assert getattr(get_experiment(store, given.id).judge, "model", None) == "grader-2"
    monkeypatch.setenv("SPARROW_JUDGE_MODEL", "grader-3")
    from_env = create_experiment(store, "judged", [RunConfig(name="react", model="rules")])
    models = Models()
    ExperimentRunner(store, from_env.id, model_factory=models).run()
    assert getattr(get_experiment(store, from_env.id).judge, "model", None) == "grader-3"
    assert unit_results(store, from_env.id)[0].passed


def test_no_judge_is_recorded_for_a_dataset_without_judge_checks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SPARROW_JUDGE_MODEL", "grader-3")
    store = file_store(tmp_path)
    create_dataset(store, "adds", [DatasetItem(id="a", question="What is 1 + 1?", expect={"number": 2})])
    info = create_experiment(store, "adds", [RunConfig(name="react", model="rules")])
    ExperimentRunner(store, info.id, model_factory=rule_model).run()
    assert get_experiment(store, info.id).judge is None
    assert "judge:" not in show_text(store, info.id, as_json=False)


def test_eval_run_records_its_judge_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "judged.jsonl"
    data.write_text(json.dumps(JUDGED.model_dump(mode="json", exclude_none=True)) + "\n", encoding="utf-8")
    with FakeOpenAIServer(rule_reply) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        monkeypatch.setenv("SPARROW_DATA_DIR", str(tmp_path / "data"))
        assert main(["eval", "datasets", "import", str(data)]) == 0
        assert main(["eval", "run", "judged", "--model", "gpt-4o-mini", "--judge-model", "gpt-4o", "--json"]) in (0, 1)
        report = json.loads(capsys.readouterr().out.split("\n", 1)[1])
    assert report["experiment"]["judge"]["model"] == "gpt-4o"
    (result,) = report["results"]
    assert result["scores"][0]["name"] == "judge" and result["scores"][0].get("judge_run", "").startswith("ses_")
