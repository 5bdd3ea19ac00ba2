"""RunSettings: the one settings shape of the app, from the sidebar to the recorded event.

The sidebar edits it, the settings file keeps it (``model_dump_json``), the chat builds its agent from it, and
its ``agent`` part is what ``RunStarted`` and the session's config record (``AgentSettings.to_record``). It never
holds a secret: a typed API key stays in the browser tab that typed it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator

from agent_core.engine.protocols import PROTOCOLS
from agent_core.engine.run_context import AgentSettings
from agent_core.models import DEFAULT_MODEL

_LEGACY = {"cfg_provider": "provider", "cfg_base_url": "base_url", "cfg_model": "model", "cfg_protocol": "protocol"}
_LEGACY_AGENT = {
    "cfg_max_steps": "max_steps",
    "cfg_temperature": "temperature",
    "cfg_max_tools": "max_tools",
    "cfg_max_tokens": "max_tokens",
    "cfg_repeat_policy": "repeat_policy",
}


def known_protocol(name: str) -> str:
    """``name`` when Sparrow has a protocol of that name (``engine.protocols``); else ValueError naming the choices."""
    if name not in PROTOCOLS:
        raise ValueError(f"the protocol {name!r} is not one of {', '.join(PROTOCOLS)}")
    return name


ProtocolName = Annotated[str, AfterValidator(known_protocol)]
"""A protocol's name, checked: the type of the field in every settings shape that names one (an experiment's
configurations too), so each refuses an unknown one in the same words."""


class RunSettings(BaseModel):
    """Where the model is, which tools are on, and how the agent runs (limits, sampling, per-tool approval)."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    provider: str = Field(default="openai", max_length=40)
    """The sidebar's provider preset (``openai``, ``ollama``, ``operator0``...)."""
    base_url: str | None = Field(default=None, max_length=2000)
    """The OpenAI-compatible endpoint typed or picked; None: the provider's (or the operator's) default."""
    model: str = Field(default=DEFAULT_MODEL, max_length=200)
    """Model name as sent to the endpoint."""
    protocol: ProtocolName = "react"
    """How the agent talks to the model (see ``agent_core.engine.protocols``)."""
    tools: tuple[str, ...] | None = None
    """The enabled tools by name; None: every tool there is."""
    agent: AgentSettings = Field(default_factory=AgentSettings)
    """Limits, sampling and the per-tool approval choices: recorded in every run as they are here."""

    @field_validator("base_url", mode="before")
    @classmethod
    def _blank_is_default(cls, value: Any) -> Any:
        return (value.strip() or None) if isinstance(value, str) else value

    @field_validator("model", mode="before")
    @classmethod
    def _blank_is_default_model(cls, value: Any) -> Any:
        return (value.strip() or DEFAULT_MODEL) if isinstance(value, str) else value

    def enables(self, tool: str) -> bool:
        """Whether the tool named ``tool`` is on."""
        return self.tools is None or tool in self.tools

    def changed(self, **fields: Any) -> RunSettings:
        """A copy with ``fields`` changed (an ``AgentSettings`` field changes ``agent``), validated again."""
        agent = {k: fields.pop(k) for k in list(fields) if k in _AGENT_FIELDS}
        if agent:
            fields["agent"] = dataclasses.replace(self.agent, **agent)
        return RunSettings.model_validate({**dict(self), **fields})

    @classmethod
    def from_saved(cls, data: Mapping[str, Any]) -> RunSettings:
        """Settings from a settings file: this shape, or the flat ``cfg_*`` one written before it (raises
        ValidationError for values out of range)."""
        if not any(key.startswith("cfg_") for key in data):
            return cls.model_validate(data)
        agent = {name: data[key] for key, name in _LEGACY_AGENT.items() if key in data}
        if agent.get("max_tools") == 0:  # 0 was "every tool" in those files
            agent["max_tools"] = None
        fields = {name: data[key] for key, name in _LEGACY.items() if key in data}
        return cls.model_validate({**fields, "tools": data.get("cfg_tools"), "agent": AgentSettings(**agent)})


_AGENT_FIELDS = frozenset(f.name for f in dataclasses.fields(AgentSettings))
