"""The shipped example: a dataset of 20 questions in the spirit of the seeds, and two finished experiments.
The experiments are run here, through the real runner, agent loop, tools and scorers, by a rule-driven
stand-in model (``agent_core.testing.rule_llm``): no key and no network, so a first visit to the Experiments
page shows a filled one. The stand-in knows only a few question shapes, so some items fail honestly, and the
second experiment (a 2-step limit) regresses on the question that needs three steps. Both are labelled as
examples wherever they are shown.
"""

from __future__ import annotations

import dataclasses
from importlib import resources

from agent_core.experiments.configs import RunConfig
from agent_core.experiments.datasets import DatasetInfo, import_dataset, list_datasets, parse_dataset
from agent_core.experiments.records import ExperimentInfo, create_experiment, get_experiment, list_experiments
from agent_core.experiments.runner import ExperimentRunner
from agent_core.models.chat import ChatModel, Message, ModelRequest
from agent_core.store import SessionStore
from agent_core.testing import FunctionModel, rule_reply
from agent_core.testing.fake_models import Reply

EXAMPLE_DATASET = "Example: dates, arithmetic, percentages"
EXAMPLE_MODEL = "example-rules"
"""The name the stand-in model runs under (never a real model's name)."""
PREFIX = "Example · "


def example_file() -> bytes:
    """The example dataset, as shipped (JSONL)."""
    return resources.files("agent_core.experiments").joinpath("data/example.jsonl").read_bytes()


def rule_model(config: RunConfig) -> ChatModel:
    """The stand-in model for the example (and tests): ``rule_reply`` in process, without its typing delays."""

    def reply(messages: list[Message], request: ModelRequest) -> Reply:
        body = {"messages": messages, "tools": request.tools, "response_format": request.response_format}
        return dataclasses.replace(rule_reply(body), chunk_delay=0.0)

    return FunctionModel(reply, name=config.model)


def example_configs(max_steps: int) -> list[RunConfig]:
    """ReAct text and native tool calls with the stand-in model, at most ``max_steps`` steps."""
    return [
        RunConfig(name=f"ReAct · {max_steps} steps", model=EXAMPLE_MODEL, protocol="react", max_steps=max_steps),
        RunConfig(name=f"tools · {max_steps} steps", model=EXAMPLE_MODEL, protocol="tools", max_steps=max_steps),
    ]


def is_example(info: ExperimentInfo | DatasetInfo) -> bool:
    """True for the shipped example's dataset and experiments."""
    return info.name.startswith(PREFIX) or info.name == EXAMPLE_DATASET


def ensure_example(store: SessionStore) -> list[ExperimentInfo]:
    """The example experiments of the actor's, made (and run, ~2 s) the first time."""
    if any(d.name == EXAMPLE_DATASET for d in list_datasets(store)):
        return [e for e in list_experiments(store) if is_example(e)]
    dataset = import_dataset(store, parse_dataset(example_file(), "jsonl", source="example.jsonl"), EXAMPLE_DATASET)
    baseline = create_experiment(store, dataset.id, example_configs(10), name=f"{PREFIX}10 steps", concurrency=8)
    ExperimentRunner(store, baseline.id, model_factory=rule_model).run()
    second = create_experiment(
        store, dataset.id, example_configs(2), name=f"{PREFIX}2 steps", concurrency=8, baseline=baseline.id
    )
    ExperimentRunner(store, second.id, model_factory=rule_model).run()
    return [get_experiment(store, second.id), get_experiment(store, baseline.id)]
