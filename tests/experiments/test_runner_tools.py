"""The runner builds each configuration's tools and model once (not once per unit: the tools scan the plugin entry
points, a client makes a TLS context), shares them, and an unknown tool is still an error on each of its units."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from agent_core.experiments import (
    DatasetItem,
    ExperimentRunner,
    RunConfig,
    create_dataset,
    create_experiment,
    runner,
)
from agent_core.experiments.configs import tools_for
from agent_core.experiments.example import rule_model
from agent_core.experiments.results import unit_results
from agent_core.models.chat import ChatModel
from tests.experiments.helpers import file_store


def test_tools_and_models_are_built_once_per_configuration(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[tuple[str, ...] | None] = []

    def counting(config: RunConfig) -> list[object]:
        built.append(config.tools)
        return tools_for(config)  # type: ignore[return-value]

    monkeypatch.setattr(runner, "tools_for", counting)
    store = file_store(tmp_path)
    items = [DatasetItem(id=f"add-{n}", question=f"What is {n} + {n}?", expect={"number": 2 * n}) for n in range(6)]
    create_dataset(store, "adds", items)
    configs = [
        RunConfig(name="all", model="rules"),
        RunConfig(name="calc", model="rules", protocol="tools", tools=("calculator",)),
        RunConfig(name="bad", model="rules", tools=("no_such_tool",)),
    ]
    info = create_experiment(store, "adds", configs, concurrency=4, repeats=2)
    asked: list[str] = []

    def models(config: RunConfig) -> ChatModel:
        asked.append(config.name)
        time.sleep(0.05)  # a client takes a moment to make: units starting together must still share one
        return rule_model(config)

    ExperimentRunner(store, info.id, model_factory=models).run()
    assert sorted(asked) == ["all", "bad", "calc"]
    assert len(built) == 3 and set(built) == {None, ("calculator",), ("no_such_tool",)}
    units = unit_results(store, info.id)
    assert all(u.passed for u in units if u.config_index < 2) and len(units) == 36
    bad = [u for u in units if u.config_index == 2]
    assert len(bad) == 12 and all(u.state == "error" and "no_such_tool" in u.scores[0]["reason"] for u in bad)
