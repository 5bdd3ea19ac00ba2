"""The experiment tables: datasets and their items, experiments, and one result row per (item, configuration, repeat).
They hold only what the event log does not: the dataset, the configurations and the scores. Each result row names
the session and run that answered the item; steps, tokens and latency are read from that run's ``run_finished``
event by SQL (see ``results``), never copied here."""

from __future__ import annotations

from typing import Any

from sqlalchemy import JSON, Text
from sqlmodel import Field, SQLModel, UniqueConstraint

from agent_core.store.tables import OWNER_MAX_CHARS

ID_CHARS = 64


class DatasetRow(SQLModel, table=True):
    """A named, versioned list of items; importing under a taken name makes the next version."""

    __tablename__ = "datasets"  # pyright: ignore[reportAssignmentType]  # SQLModel types __tablename__ as its declared_attr default
    __table_args__ = (UniqueConstraint("owner", "name", "version"),)

    id: str = Field(primary_key=True, max_length=ID_CHARS)
    name: str = Field(max_length=200, index=True)
    version: int = 1
    """1 for the first dataset of this name (per owner), then 2, 3...; a version never changes once made."""
    description: str = Field(default="", sa_type=Text)
    owner: str | None = Field(default=None, max_length=OWNER_MAX_CHARS, index=True)
    """The owner's subject, like a session's; None: made without sign-in."""
    created_at: float
    item_count: int = 0


class DatasetItemRow(SQLModel, table=True):
    """One item of a dataset: the question, earlier turns, what is expected, tags and metadata."""

    __tablename__ = "dataset_items"  # pyright: ignore[reportAssignmentType]  # SQLModel types __tablename__ as its declared_attr default

    dataset_id: str = Field(primary_key=True, foreign_key="datasets.id", ondelete="CASCADE", max_length=ID_CHARS)
    position: int = Field(primary_key=True)
    """0-based order in the dataset."""
    key: str = Field(max_length=ID_CHARS)
    """The item's own id (from the file, else ``item-N``), unique in its dataset."""
    data: dict[str, Any] = Field(sa_type=JSON)
    """The validated item (``DatasetItem.model_dump``)."""


class ExperimentRow(SQLModel, table=True):
    """A dataset run through one or more configurations, each item ``repeats`` times."""

    __tablename__ = "experiments"  # pyright: ignore[reportAssignmentType]  # SQLModel types __tablename__ as its declared_attr default

    id: str = Field(primary_key=True, max_length=ID_CHARS)
    name: str = Field(max_length=200)
    dataset_id: str = Field(foreign_key="datasets.id", ondelete="CASCADE", index=True, max_length=ID_CHARS)
    configs: list[dict[str, Any]] = Field(sa_type=JSON)
    """The exact configurations (``RunConfig.model_dump``), in column order; never a secret."""
    repeats: int = 1
    concurrency: int = 4
    baseline_id: str | None = Field(default=None, max_length=ID_CHARS)
    """The experiment this one is compared with, if any (not a foreign key: the baseline may be deleted)."""
    status: str = Field(default="pending", max_length=20)
    """``pending``, ``running``, ``finished``, ``cancelled`` or ``error``."""
    owner: str | None = Field(default=None, max_length=OWNER_MAX_CHARS, index=True)
    created_at: float
    finished_at: float | None = None
    queue: str | None = Field(default=None, max_length=40)
    """Set when the items are handed to workers through a job queue (``worker``); None: run in this process."""
    judge: dict[str, Any] | None = Field(default=None, sa_type=JSON)
    """The model that grades ``judge`` checks, as a configuration (``RunConfig.model_dump``); None: no judge."""


class ResultRow(SQLModel, table=True):
    """One (item, configuration, repeat) of an experiment: its run and its scores."""

    __tablename__ = "experiment_results"  # pyright: ignore[reportAssignmentType]  # SQLModel types __tablename__ as its declared_attr default

    experiment_id: str = Field(primary_key=True, foreign_key="experiments.id", ondelete="CASCADE", max_length=64)
    position: int = Field(primary_key=True)
    """The item's position in the dataset."""
    config_index: int = Field(primary_key=True)
    repeat: int = Field(primary_key=True)
    session_id: str | None = Field(default=None, foreign_key="sessions.id", ondelete="SET NULL", max_length=64)
    """The session of its own that the item ran in (an ordinary recorded run)."""
    run_id: str | None = Field(default=None, max_length=ID_CHARS)
    state: str = Field(default="running", max_length=20)
    """``running`` (claimed, not scored yet), ``done`` (scored) or ``error`` (could not be run or scored)."""
    passed: bool | None = None
    score: float | None = None
    """0..1: the mean of the checks' values."""
    scores: list[dict[str, Any]] = Field(default_factory=list, sa_type=JSON)
    """One ``Score.model_dump()`` per check, each with its one-sentence reason."""
    failure: str | None = Field(default=None, max_length=40)
    """Why it failed, from the step states: format_retries, repeated_actions, tool_errors, max_steps, timeout,
    error, cancelled or wrong_answer; None when it passed."""
    cost: float | None = None
    """Dollars, priced when scored (None: the model has no price)."""
    worker: str | None = Field(default=None, max_length=200)
    started_at: float
    finished_at: float | None = None
