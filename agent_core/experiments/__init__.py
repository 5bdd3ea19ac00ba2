"""Experiments: run a dataset through the agent across configurations, score every answer, see what got worse.
Every item is an ordinary recorded run in a session of its own, linked to (experiment, item, configuration,
repeat); the experiment tables hold only the dataset, the configurations and the scores. See
docs/experiments.md for the dataset format and the ``eval`` commands.
"""

from agent_core.experiments.configs import ConfigFileError, RunConfig
from agent_core.experiments.datasets import (
    Check,
    DatasetFileError,
    DatasetInfo,
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
    read_dataset_file,
    to_jsonl,
)
from agent_core.experiments.records import (
    ExperimentInfo,
    ExperimentNotFound,
    create_experiment,
    get_experiment,
)
from agent_core.experiments.runner import ExperimentRunner
from agent_core.experiments.scoring import Score, ScoringContext, scorer

__all__ = [
    "Check",
    "ConfigFileError",
    "DatasetFileError",
    "DatasetInfo",
    "DatasetItem",
    "DatasetNotFound",
    "ExperimentInfo",
    "ExperimentNotFound",
    "ExperimentRunner",
    "RunConfig",
    "Score",
    "ScoringContext",
    "add_items",
    "create_dataset",
    "create_experiment",
    "dataset_items",
    "get_dataset",
    "get_experiment",
    "import_dataset",
    "item_from_turn",
    "list_datasets",
    "parse_dataset",
    "read_dataset_file",
    "scorer",
    "to_jsonl",
]
