"""An experiment's configurations: model, endpoint, protocol, temperature, step limit, tools, system prompt.

A configuration never holds a secret: the API key is read from the environment variable it names
(``api_key_env``, default ``OPENAI_API_KEY``) when the run starts; which variables it may name and where their
key may go is ``config_policy``'s to say. TOML files give one configuration as
top-level keys, or several as ``[[config]]`` tables::

    [[config]]
    name = "mini, ReAct"
    model = "gpt-4o-mini"
    protocol = "react"
    temperature = 0.0
    max_steps = 8
    tools = ["calculator", "date_calculator"]
    system_prompt = "You are terse."
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from agent_core.engine.agent import Agent
from agent_core.experiments.config_policy import ConfigFileError, checked_connection, key_env_problem
from agent_core.experiments.items import problems_of
from agent_core.models import OpenAIChatModel
from agent_core.models.chat import ChatModel
from agent_core.runtime.catalog import tool_catalog
from agent_core.runtime.run_settings import ProtocolName
from agent_core.store.redaction import scrub_url
from agent_core.tools import Tool

ModelFactory = Callable[["RunConfig"], ChatModel]
"""Makes the chat model a configuration names (tests and the example pass fakes)."""


class RunConfig(BaseModel):
    """One column of an experiment: how each item is run."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(default="", max_length=100)
    """A short label; defaults to ``model · protocol``."""
    model: str = Field(min_length=1, max_length=200)
    base_url: str | None = Field(default=None, max_length=2000)
    protocol: ProtocolName = "react"
    temperature: float | None = Field(default=0.0, ge=0, le=2)
    max_steps: int = Field(default=10, ge=1, le=100)
    time_limit: float | None = Field(default=300.0, gt=0)
    tools: tuple[str, ...] | None = None
    """Tool names to enable; None: every built-in tool that needs no approval."""
    system_prompt: str | None = Field(default=None, max_length=20_000)
    """Instructions that replace the protocol's opening line (a prompt variant)."""
    api_key_env: str = Field(default="OPENAI_API_KEY", pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")

    @field_validator("base_url")
    @classmethod
    def _no_credentials(cls, value: str | None) -> str | None:
        return scrub_url(value)

    @property
    def label(self) -> str:
        """The name, or ``model · protocol``."""
        return self.name or f"{self.model} · {self.protocol}"


def openai_model(config: RunConfig) -> ChatModel:
    """The OpenAI-compatible model of ``config``, its key and URL as ``config_policy`` allows (else ConfigFileError)."""
    connection = checked_connection(config.base_url, config.api_key_env, config.label)
    return OpenAIChatModel(
        config.model,
        base_url=connection.base_url,
        api_key=connection.api_key,
        use_environment=False,
        address_policy=connection.address_policy,
    )


def check_config(config: RunConfig) -> None:
    """ConfigFileError (one sentence) when ``config``'s key variable or base URL is refused."""
    checked_connection(config.base_url, config.api_key_env, config.label)


def tools_for(config: RunConfig) -> list[Tool]:
    """The tools a configuration enables (ValueError naming an unknown one)."""
    catalog = tool_catalog(memory=False, mcp=False)
    if config.tools is None:
        return [t for t in catalog.tools if not t.needs_approval]
    return catalog.get(list(config.tools))


def agent_for(config: RunConfig, model: ChatModel, tools: Sequence[Tool]) -> Agent:
    """An agent that runs items with ``config``; unattended, so named tools run without asking."""
    return Agent(
        model,
        tools,
        protocol=config.protocol,
        instructions=config.system_prompt,
        temperature=config.temperature,
        max_steps=config.max_steps,
        time_limit=config.time_limit,
        require_approval=False,
    )


def parse_configs(text: str, source: str = "the configuration") -> list[RunConfig]:
    """Configurations from TOML text: top-level keys (one) or ``[[config]]`` tables (several)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigFileError(f"{source} is not valid TOML ({exc})") from None
    tables = data.get("config", [data]) if isinstance(data.get("config", [data]), list) else None
    if not tables:
        raise ConfigFileError(f"{source}: give a configuration's keys, or [[config]] tables")
    out, problems = [], []
    for number, table in enumerate(tables, start=1):
        try:
            config = RunConfig.model_validate(table)
        except ValidationError as exc:
            problems.extend(problems_of(exc, f"{source}, config {number}"))
            continue
        if (problem := key_env_problem(config.api_key_env)) is not None:
            problems.append(f"{source}, config {number}: {problem}")
        out.append(config)
    if problems:
        raise ConfigFileError("\n".join(problems))
    return out


def read_configs(path: str | Path) -> list[RunConfig]:
    """The configurations in a TOML file."""
    path = Path(path)
    try:
        return parse_configs(path.read_text(encoding="utf-8"), path.name)
    except OSError as exc:
        raise ConfigFileError(f"cannot read {path}: {exc.strerror or exc}") from None
