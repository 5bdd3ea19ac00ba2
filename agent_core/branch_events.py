"""Events of branches: a run forked from another at a step, and re-samples of a step."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from agent_core.event_base import LATER, EventBase, Usage


@dataclass(frozen=True, kw_only=True)
class RunForked(EventBase):
    """This run is a fork of another run at a step: it follows the run's RunStarted, before the copied events."""

    type: Literal["run_forked"] = field(default="run_forked", init=False)
    """Always ``run_forked``."""
    from_session: str
    """The session of the original run (never written to by the fork)."""
    from_run: str
    """The original run."""
    at_step: int
    """The step the fork changes: steps before it are copies of the original's."""
    edit: dict[str, Any] = field(default_factory=dict)
    """What changed at ``at_step``: ``{"kind": "observation" | "action" | "thought" | "answer" | "settings", ...}``."""
    copied_events: int = 0
    """How many of this run's events are copies of the original's (their run id changed to this run's)."""


@dataclass(frozen=True, kw_only=True)
class ModelSampled(EventBase):
    """One re-sample of a finished step: the model asked again with exactly that step's messages."""

    type: Literal["model_sampled"] = field(default="model_sampled", init=False)
    """Always ``model_sampled``."""
    step: int
    """The step re-asked (its ModelFinished holds the messages that were sent again)."""
    batch: str
    """Samples asked together share this id."""
    index: int
    """0-based position of this sample in its batch."""
    model: str = ""
    """Model name as the client reports it."""
    temperature: float | None = None
    """The sampling temperature sent."""
    text: str = ""
    """Raw reply text."""
    thought: str = ""
    """The reply's Thought as parsed."""
    tool_calls: tuple[dict[str, Any], ...] = ()
    """Requested actions, as in ModelFinished."""
    final_answer: str | None = None
    """The answer, when the reply is one."""
    format_error: str | None = None
    """Why the reply could not be understood."""
    error: str | None = None
    """Why the call failed."""
    usage: Usage = field(default_factory=Usage)
    """Tokens of this call."""
    latency_ms: float = 0.0
    """Wall-clock time of the call."""
    endpoint: str | None = field(default=None, metadata=LATER)
    """The base URL the sample was asked at, without credentials (its price's provider); None: not recorded."""
