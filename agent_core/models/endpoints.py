"""Model endpoints: which key goes where (the operator's keys only to the operator's endpoints), and the presets.

A deployment's operator configures endpoints (``OPENAI_BASE_URL`` with ``OPENAI_API_KEY``, plus any listed in
the app's configuration, each with its own key). ``EndpointPolicy.connection`` turns what a user chose (a base
URL, maybe a key they typed) into what is actually sent:

- a key the user typed goes to the URL the user typed, and nowhere else;
- without a typed key, the operator's key goes only to the operator endpoint whose URL is the same one
  (scheme, host, port and path compared after normalising; a URL with a user name, query or fragment never
  matches), else no key at all;
- in a deployment with sign-in (``guard_addresses``), a URL that is not the operator's must pass the web
  tools' address rules (no loopback, private or link-local addresses unless the operator allows them): checked
  when the connection is made (``connection``) and again at every connect (``GuardedTransport``: DNS rebinding);
- ``locked``: the operator's first endpoint and model are used whatever the user chose.

``PROVIDERS`` are the presets the sidebar offers: where each OpenAI-compatible provider lives and which models
to suggest.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urlsplit, urlunsplit

from agent_core.models.chat import ModelError
from agent_core.tools.network.http import AddressPolicy, BlockedAddress, HttpError, resolve

OPENAI_API = "https://api.openai.com/v1"
"""Where a client without a base URL sends its calls."""
_DEFAULT_PORTS = {"http": 80, "https": 443}


@dataclass(frozen=True)
class OperatorEndpoint:
    """An endpoint the operator configured, with the key the server sends to it."""

    base_url: str | None
    """None: OpenAI's own API."""
    api_key: str | None = None
    label: str = ""
    """Shown in the sidebar's provider list."""
    models: tuple[str, ...] = ()
    """Suggested models; the first is the default when the endpoint is chosen."""


@dataclass(frozen=True)
class Connection:
    """What a model client is built with: where, which key, and the address rules its connections pass."""

    base_url: str | None
    api_key: str | None
    address_policy: AddressPolicy | None
    """None: connect anywhere (an operator endpoint, or single-user mode)."""


def endpoint_identity(base_url: str | None) -> tuple[str, str, int, str] | None:
    """(scheme, host, port, path) of a base URL, normalised; None for one that can never name an operator endpoint."""
    try:
        parts = urlsplit((base_url or OPENAI_API).strip())
        port = parts.port or _DEFAULT_PORTS.get(parts.scheme.lower())
    except ValueError:
        return None
    if parts.username is not None or parts.password is not None or parts.query or parts.fragment:
        return None
    if parts.scheme.lower() not in _DEFAULT_PORTS or not parts.hostname or port is None:
        return None
    return parts.scheme.lower(), parts.hostname.lower().rstrip("."), port, parts.path.rstrip("/")


def recorded_endpoint(model: object) -> str | None:
    """Where ``model`` sends its calls, as its runs record it: scheme, host, port and path, never credentials.

    A model without a base URL (a scripted one) records None; its runs are priced by model name.
    """
    url = getattr(model, "endpoint", None)
    if not isinstance(url, str):
        url = getattr(model, "base_url", None)
    try:
        parts = urlsplit(url.strip()) if isinstance(url, str) else None
        port = parts.port if parts else None
    except ValueError:
        return None
    if parts is None or not parts.scheme or not parts.hostname:
        return None
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    netloc = host if port is None else f"{host}:{port}"
    return urlunsplit((parts.scheme.lower(), netloc, parts.path.rstrip("/"), "", ""))


@dataclass(frozen=True)
class EndpointPolicy:
    """The operator's endpoints and what users may do with the model settings."""

    endpoints: tuple[OperatorEndpoint, ...] = ()
    """The first is the default (``OPENAI_BASE_URL`` / ``OPENAI_API_KEY`` when set)."""
    locked: bool = False
    """Users cannot change the endpoint, model or key: the first endpoint and ``model`` are used."""
    model: str | None = None
    """The operator's model (``SPARROW_MODEL``), used when locked."""
    guard_addresses: bool = False
    """True with sign-in: a URL a user typed must pass ``addresses``."""
    addresses: AddressPolicy = field(default_factory=AddressPolicy)

    def operator_endpoint(self, base_url: str | None) -> OperatorEndpoint | None:
        """The operator endpoint ``base_url`` names, if any."""
        wanted = endpoint_identity(base_url)
        if wanted is None:
            return None
        return next((e for e in self.endpoints if endpoint_identity(e.base_url) == wanted), None)

    def pinned(self, base_url: str | None, typed_key: str | None, model: str) -> tuple[str | None, str | None, str]:
        """(base URL, typed key, model) as the operator allows: unchanged, or, when locked, the operator's."""
        if not self.locked:
            return base_url, typed_key, model
        first = self.endpoints[0] if self.endpoints else None
        suggested = first.models[0] if first and first.models else model
        return (first.base_url if first else None), None, self.model or suggested

    def connection(self, base_url: str | None, typed_key: str | None) -> Connection:
        """Where to connect and with which key; raises ModelError("config") for a URL the address rules refuse.

        No base URL means the operator's default endpoint (the first), else OpenAI's own API.
        """
        if not (base_url or "").strip():
            base_url = self.endpoints[0].base_url if self.endpoints else None
        chosen = self.operator_endpoint(base_url)
        if typed_key:
            return Connection(base_url, typed_key, None if chosen else self._typed_url_policy(base_url))
        if chosen is not None:
            return Connection(chosen.base_url, chosen.api_key, None)
        return Connection(base_url, None, self._typed_url_policy(base_url))

    def _typed_url_policy(self, base_url: str | None) -> AddressPolicy | None:
        """The address rules for a URL the user typed (checked now, and again at connect time)."""
        if not self.guard_addresses:
            return None
        parts = urlsplit((base_url or OPENAI_API).strip())
        try:
            host, port = parts.hostname, parts.port or _DEFAULT_PORTS.get(parts.scheme.lower(), 443)
        except ValueError:
            host, port = None, 0
        if parts.scheme.lower() not in _DEFAULT_PORTS or not host:
            raise ModelError("config", f"{base_url!r} is not an http:// or https:// base URL")
        try:
            self.addresses.check(host, resolve(host, port, 10.0))
        except BlockedAddress as exc:
            raise ModelError("config", f"This base URL is not allowed here: {exc}.") from None
        except HttpError:
            pass  # cannot be resolved now: the check at connect time decides, and names the problem
        return self.addresses


@dataclass(frozen=True)
class Provider:
    """An OpenAI-compatible endpoint family."""

    key: str
    label: str
    base_url: str | None
    """None for OpenAI's default endpoint; empty for "type your own"."""
    models: tuple[str, ...]
    needs_key: bool = True
    key_hint: str = ""


PROVIDERS: tuple[Provider, ...] = (
    Provider("openai", "OpenAI", None, ("gpt-4o-mini", "gpt-4o", "gpt-4.1-mini", "gpt-4.1"), key_hint="sk-..."),
    Provider(
        "deepseek", "DeepSeek", "https://api.deepseek.com/v1", ("deepseek-chat", "deepseek-reasoner"), key_hint="sk-..."
    ),
    Provider(
        "qwen",
        "Qwen / DashScope (compatible mode)",
        "https://dashscope.aliyuncs.com/compatible-mode/v1",
        ("qwen-plus", "qwen-max", "qwen-turbo"),
        key_hint="sk-...",
    ),
    Provider(
        "moonshot",
        "Moonshot (Kimi)",
        "https://api.moonshot.cn/v1",
        ("moonshot-v1-8k", "moonshot-v1-32k"),
        key_hint="sk-...",
    ),
    Provider("ollama", "Ollama (local)", "http://localhost:11434/v1", ("qwen2.5:7b", "llama3.1:8b"), needs_key=False),
    Provider(
        "local",
        "Built-in small model (offline): SmolLM2-135M, tiny, for trying the loop",
        "",
        ("smollm2-135m",),
        needs_key=False,
    ),
    Provider(
        "custom",
        "vLLM / llama.cpp / custom URL",
        "http://localhost:8000/v1",
        (),
        needs_key=False,
    ),
)


def provider(key: str) -> Provider:
    """The preset with this key (the custom one when unknown)."""
    return next((p for p in PROVIDERS if p.key == key), PROVIDERS[-1])


def guess_provider(base_url: str | None) -> Provider:
    """The preset whose base URL matches (OpenAI when none is set)."""
    if not base_url:
        return PROVIDERS[0]
    normalized = base_url.rstrip("/")
    return next((p for p in PROVIDERS if p.base_url and p.base_url.rstrip("/") == normalized), provider("custom"))
