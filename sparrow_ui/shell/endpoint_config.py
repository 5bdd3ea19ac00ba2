"""The operator's model endpoints, read from the environment and ``.streamlit/secrets.toml``.

```toml
OPENAI_API_KEY = "sk-..."                  # or the environment; goes only to OPENAI_BASE_URL (default: OpenAI)

[sparrow]
lock_model_settings = true                 # users cannot change endpoint, model or key
allow_private_endpoints = false            # with sign-in: may a URL a user types reach private addresses?
allowed_endpoint_networks = ["10.1.0.0/16"]

[[sparrow.endpoints]]                      # more endpoints, each with its own key
label = "Team vLLM"
base_url = "http://10.1.2.3:8000/v1"
api_key = "..."
models = ["qwen2.5-72b"]
```
"""

from __future__ import annotations

from typing import Any

from agent_core.env_settings import env_settings
from agent_core.models.endpoints import EndpointPolicy, OperatorEndpoint
from agent_core.tools.network.http import AddressPolicy
from sparrow_ui.access.auth import auth_configured
from sparrow_ui.access.page_run import secrets, secrets_section

LOCK_ENV = "SPARROW_LOCK_MODEL_SETTINGS"
"""Environment switch for ``[sparrow] lock_model_settings``."""


def sparrow_section() -> dict[str, Any]:
    """The ``[sparrow]`` section of the secrets (empty without one)."""
    return secrets_section("sparrow")


def _secret(name: str) -> str | None:
    """A top-level value from the environment, else from the secrets."""
    if value := getattr(env_settings(), name.lower()):
        return value
    value = secrets().get(name)
    return str(value) if value else None


def operator_endpoints(section: dict[str, Any]) -> tuple[OperatorEndpoint, ...]:
    """OPENAI_BASE_URL with OPENAI_API_KEY (when either is set), then ``[[sparrow.endpoints]]``."""
    url, key = _secret("OPENAI_BASE_URL"), _secret("OPENAI_API_KEY")
    found = [OperatorEndpoint(url, key, url or "OpenAI")] if url or key else []
    for entry in section.get("endpoints") or []:
        entry = dict(entry)
        if entry.get("base_url"):
            models = tuple(str(m) for m in entry.get("models") or ())
            label = str(entry.get("label") or entry["base_url"])
            found.append(OperatorEndpoint(str(entry["base_url"]), entry.get("api_key") or None, label, models))
    return tuple(found)


def endpoint_policy() -> EndpointPolicy:
    """This deployment's policy: operator endpoints, lock, and the address rules for user-typed URLs."""
    section = sparrow_section()
    networks = section.get("allowed_endpoint_networks") or []
    return EndpointPolicy(
        endpoints=operator_endpoints(section),
        locked=bool(section.get("lock_model_settings")) or env_settings().sparrow_lock_model_settings,
        model=env_settings().sparrow_model or section.get("model") or None,
        guard_addresses=auth_configured(),
        addresses=AddressPolicy.build(
            allow_private=bool(section.get("allow_private_endpoints")), allowed_networks=[str(n) for n in networks]
        ),
    )
