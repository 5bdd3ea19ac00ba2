"""An experiment's configurations (model, endpoint, protocol, temperature, step limit, tools, system prompt), the TOML
files that give them, and what a configuration may reach. A configuration never holds a secret: it names the
environment variable its API key is read from when the run starts (``api_key_env``, default ``OPENAI_API_KEY``),
which must name a model key (a variable ending in ``_API_KEY`` or ``_KEY``, or one the operator lists in
``SPARROW_EVAL_KEY_ENVS``), never one of the app's own settings (``SPARROW_*``, ``STREAMLIT_*``), a name that says
secret, password, token, access, private, session, cookie, signing or database, nor a cloud credential (``AWS_*``,
``AZURE_*``, ``GOOGLE_*``, ``GCP_*``). Its base URL passes the app's endpoint policy (``EndpointPolicy``):
``OPENAI_API_KEY`` goes only to the operator's endpoint (``OPENAI_BASE_URL``, else OpenAI's API), another key to the
configuration's URL, and any URL that is not the operator's must reach a public address unless
``SPARROW_ALLOW_PRIVATE_ENDPOINTS=1`` or it lies in ``SPARROW_ALLOWED_ENDPOINT_NETWORKS``
("10.1.0.0/16,127.0.0.1/32"); checked when the client is made and again at every connection (DNS rebinding). This
holds for a TOML file and for a configuration stored in the database and run by a ``worker`` alike. A TOML file
gives one configuration as top-level keys (``model = "gpt-4o-mini"``, ``protocol = "react"``, ``max_steps = 8``,
``tools = ["calculator"]``...), or several as ``[[config]]`` tables.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from agent_core.engine.agent import Agent
from agent_core.env_settings import env_settings
from agent_core.experiments.datasets import problems_of
from agent_core.models import OpenAIChatModel
from agent_core.models.chat import ChatModel, ModelError
from agent_core.models.endpoints import Connection, EndpointPolicy, OperatorEndpoint
from agent_core.runtime.catalog import tool_catalog
from agent_core.runtime.run_settings import ProtocolName
from agent_core.store.redaction import scrub_url
from agent_core.tools import Tool
from agent_core.tools.network.http import AddressPolicy

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


DEFAULT_KEY_ENV = "OPENAI_API_KEY"
KEY_ENVS_ENV = "SPARROW_EVAL_KEY_ENVS"
"""Extra variable names (comma-separated) a configuration's ``api_key_env`` may name."""
ALLOWED_NETWORKS_ENV = "SPARROW_ALLOWED_ENDPOINT_NETWORKS"
"""Non-public networks a configuration's base URL may reach anyway (comma-separated)."""
_KEY_NAME = re.compile(r"_KEY$", re.I)
_NEVER = re.compile(
    r"SECRET|PASSWORD|PASSWD|TOKEN|ACCESS|PRIVATE|SESSION|COOKIE|SIGNING|DATABASE|"
    r"^(SPARROW|STREAMLIT|AWS|AZURE|GOOGLE|GCP)_",
    re.I,
)


class ConfigFileError(ValueError):
    """A configuration file or option that cannot be used (one sentence per problem)."""


def operator_key_envs(environ: Mapping[str, str] | None = None) -> set[str]:
    """The names the operator allows on top of the ``_KEY`` rule."""
    return set(env_settings(environ).sparrow_eval_key_envs)


def key_env_problem(name: str, environ: Mapping[str, str] | None = None) -> str | None:
    """Why ``api_key_env`` may not name ``name`` (one sentence), or None when it may."""
    if _NEVER.search(name):
        return f"api_key_env {name!r} names one of the app's settings or a credential, never sent to a model endpoint"
    if _KEY_NAME.search(name) or name in operator_key_envs(environ):
        return None
    return (
        f"api_key_env {name!r} is not a model key: name a variable ending in _API_KEY or _KEY, "
        f"or list it in {KEY_ENVS_ENV}"
    )


def environment_policy(environ: Mapping[str, str] | None = None) -> EndpointPolicy:
    """The CLI's and the workers' endpoint policy: the operator's endpoint from the environment, addresses guarded."""
    env = env_settings(environ)
    url, key = env.openai_base_url, env.openai_api_key
    endpoints = (OperatorEndpoint(url, key, url or "OpenAI"),) if url or key else ()
    networks = env.sparrow_allowed_endpoint_networks
    try:
        addresses = AddressPolicy.build(allow_private=env.sparrow_allow_private_endpoints, allowed_networks=networks)
    except ValueError as exc:
        raise ConfigFileError(f"{ALLOWED_NETWORKS_ENV}: {exc}") from None
    return EndpointPolicy(endpoints, guard_addresses=True, addresses=addresses)


def checked_connection(
    base_url: str | None, key_env: str, label: str, environ: Mapping[str, str] | None = None
) -> Connection:
    """Where a configuration's client connects and with which key; ConfigFileError (one sentence) when refused."""
    if (problem := key_env_problem(key_env, environ)) is not None:
        raise ConfigFileError(f"{label}: {problem}")
    # the key variable a configuration names is the operator's choice, not one of Sparrow's settings
    typed = None if key_env == DEFAULT_KEY_ENV else (os.environ if environ is None else environ).get(key_env) or None
    try:
        return environment_policy(environ).connection(base_url, typed)
    except ModelError as exc:
        raise ConfigFileError(f"{label}: {exc.message}") from None


def openai_model(config: RunConfig) -> ChatModel:
    """The OpenAI-compatible model of ``config``, its key and URL checked (``checked_connection``)."""
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
