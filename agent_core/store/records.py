"""Plain, immutable views of what the store holds; the API returns these, never ORM rows."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

from pydantic import BaseModel, ConfigDict, Field, field_validator

from agent_core.store.redaction import scrub_settings, scrub_url


class SessionConfig(BaseModel):
    """How a session's runs are configured: model, endpoint, protocol and agent settings. Never a secret."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    model: str = Field(default="", max_length=200)
    """Model name as sent to the endpoint."""
    base_url: str | None = Field(default=None, max_length=2000)
    """OpenAI-compatible endpoint, without credentials; None for the provider's default."""
    protocol: str = Field(default="react", max_length=40)
    """``react`` or ``tools``."""
    settings: dict[str, Any] = Field(default_factory=dict)
    """Agent settings (``AgentSettings`` fields); secret-named keys are dropped."""

    @field_validator("base_url")
    @classmethod
    def _no_credentials_in_url(cls, value: str | None) -> str | None:
        return scrub_url(value)

    @field_validator("settings")
    @classmethod
    def _no_secret_settings(cls, value: dict[str, Any]) -> dict[str, Any]:
        return scrub_settings(value)


@dataclass(frozen=True)
class SessionInfo:
    """One session as listed and opened."""

    id: str
    title: str
    """Display title: the renamed title, else one made from the first question, else ``New session``."""
    created_at: float
    """Unix time."""
    updated_at: float
    """Unix time of the last event, rename or configuration change."""
    config: SessionConfig = field(default_factory=SessionConfig)
    """The configuration its latest run used."""
    last_seq: int = 0
    """Sequence number of its last event (0 when it has none)."""
    parent_id: str | None = None
    """The session it was forked from, if it still exists here."""
    forked_from: str | None = None
    """Id of the snapshot it was forked from."""


@dataclass(frozen=True)
class SnapshotInfo:
    """A named, immutable point in a session: its events up to ``upto_seq``."""

    id: str
    session_id: str
    name: str
    created_at: float
    upto_seq: int
    """The snapshot holds the session's events with ``seq <= upto_seq``."""
    title: str | None = None
    """The session's title when the snapshot was taken (None if it had none yet)."""
    config: SessionConfig = field(default_factory=SessionConfig)
    """The session's configuration when the snapshot was taken."""


@dataclass(frozen=True)
class InterruptedRun:
    """The last run of a session has no ``run_finished`` event: the process died (or is still running)."""

    run_id: str
    question: str
    started_seq: int
    """Sequence number of its ``run_started`` event."""
    last_seq: int
    """Sequence number of the last event written for it."""
    last_event_at: float
    """Unix time of that event: a run still in progress elsewhere has a recent one."""


class StoredEvent(NamedTuple):
    """An event row as stored: ``payload`` is the JSON text of ``event.to_dict()``."""

    seq: int
    run_id: str
    type: str
    ts: float
    payload: str


@dataclass(frozen=True)
class SessionDump:
    """Everything about one session, as the snapshot file carries it."""

    id: str
    title: str | None
    """Raw title: None until the first question (or a rename) gives it one."""
    created_at: float
    updated_at: float
    config: SessionConfig
    events: list[StoredEvent]
    snapshots: list[SnapshotInfo]
    parent_id: str | None = None
    forked_from: str | None = None
