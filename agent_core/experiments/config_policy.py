"""What an experiment configuration may reach: which environment variable its key is read from, and where that key
may be sent.

A configuration (a TOML file, or one stored in the database and run by a ``worker``) names its key by an
environment variable (``api_key_env``) and may give a base URL. Neither may reach what it should not:

- ``api_key_env`` must name a model key: a variable ending in ``_API_KEY`` or ``_KEY``, or one the operator lists in
  ``SPARROW_EVAL_KEY_ENVS`` (comma-separated). Never one of the app's own settings (``SPARROW_*``,
  ``STREAMLIT_*``), nor a name that says secret, password, token, access, private, session, cookie, signing or
  database, nor a cloud credential (``AWS_*``, ``AZURE_*``, ``GOOGLE_*``, ``GCP_*``).
- The base URL passes the app's endpoint policy (``EndpointPolicy``): ``OPENAI_API_KEY`` goes only to the operator's
  endpoint (``OPENAI_BASE_URL``, else OpenAI's API); another key goes to the configuration's URL; any URL that is
  not the operator's must reach a public address, unless ``SPARROW_ALLOW_PRIVATE_ENDPOINTS=1`` or it lies in
  ``SPARROW_ALLOWED_ENDPOINT_NETWORKS`` ("10.1.0.0/16,127.0.0.1/32"). Checked when the client is made and again
  at every connection (DNS rebinding).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

from agent_core.env_settings import env_settings
from agent_core.models.chat import ModelError
from agent_core.models.endpoints import Connection, EndpointPolicy, OperatorEndpoint
from agent_core.tools.network.http import AddressPolicy

DEFAULT_KEY_ENV = "OPENAI_API_KEY"
KEY_ENVS_ENV = "SPARROW_EVAL_KEY_ENVS"
"""Extra variable names (comma-separated) a configuration's ``api_key_env`` may name."""
ALLOW_PRIVATE_ENV = "SPARROW_ALLOW_PRIVATE_ENDPOINTS"
"""1: a configuration's base URL may reach loopback, private and link-local addresses."""
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
