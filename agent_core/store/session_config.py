"""SessionConfig: how a session's runs are configured (model, endpoint, protocol, settings); never a secret."""

from __future__ import annotations

from typing import Any

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
    """Agent settings as ``AgentSettings.to_record`` writes them (read back with ``from_record``); secret-named keys
    are dropped."""

    @field_validator("base_url")
    @classmethod
    def _no_credentials_in_url(cls, value: str | None) -> str | None:
        return scrub_url(value)

    @field_validator("settings")
    @classmethod
    def _no_secret_settings(cls, value: dict[str, Any]) -> dict[str, Any]:
        return scrub_settings(value)
