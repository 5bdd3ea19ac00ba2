"""Every environment variable Sparrow reads, in one typed settings object (pydantic-settings).

Each field is named for its variable (``sparrow_data_dir`` is ``SPARROW_DATA_DIR``); an unset or empty variable
means the field's default. Read them through :func:`env_settings`, which reads the environment again whenever
one of these variables changed (tests set them with ``monkeypatch.setenv``) and otherwise returns the object it
built last. Values whose format has its own reader (the JSON of ``SPARROW_PRICES``, the pairs of
``OTEL_RESOURCE_ATTRIBUTES``, a memory scope) stay text here and are parsed, with their own message, where used.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any

from pydantic import BeforeValidator, Field, ValidationError
from pydantic_settings import BaseSettings, NoDecode, PydanticBaseSettingsSource, SettingsConfigDict


def _comma_list(value: Any) -> Any:
    """``a, b,,c`` as ``("a", "b", "c")``; a list or tuple as given."""
    return tuple(p.strip() for p in value.split(",") if p.strip()) if isinstance(value, str) else value


CommaList = Annotated[tuple[str, ...], NoDecode, BeforeValidator(_comma_list)]
"""A comma-separated variable (``SPARROW_TOOLS="a,b"``), as a tuple of its non-empty parts."""


class EnvSettingsError(ValueError):
    """An environment variable holds a value Sparrow cannot use; the message names it in one sentence."""


class EnvSettings(BaseSettings):
    """The environment as Sparrow reads it: one field per variable, typed, with its default."""

    model_config = SettingsConfigDict(
        case_sensitive=False, env_ignore_empty=True, extra="ignore", frozen=True, str_strip_whitespace=True
    )

    # --- the model endpoint ---------------------------------------------------------------------------------------
    sparrow_model: str | None = None
    """Model name for the CLI, the app and experiments (default ``gpt-4o-mini``)."""
    openai_base_url: str | None = None
    """The operator's OpenAI-compatible endpoint (default: OpenAI's API); the only URL ``OPENAI_API_KEY`` goes to."""
    openai_api_key: str | None = Field(default=None, repr=False)
    """The operator's API key (the openai client also reads it; Sparrow sends it only to ``OPENAI_BASE_URL``)."""
    sparrow_lock_model_settings: bool = False
    """True: users see the operator's endpoint and model but cannot change them (also ``lock_model_settings``)."""
    sparrow_eval_key_envs: CommaList = ()
    """More variables that hold operator keys, which an experiment's configuration may not name."""
    sparrow_allow_private_endpoints: bool = False
    """True: a URL a user or an experiment typed may reach any address (default: public addresses only)."""
    sparrow_allowed_endpoint_networks: CommaList = ()
    """Address ranges (``10.1.0.0/16``) such a URL may reach besides public addresses."""

    # --- storage and identity -------------------------------------------------------------------------------------
    database_url: str | None = Field(default=None, repr=False)
    """SQLAlchemy URL of the store (default: SQLite in ``SPARROW_DATA_DIR``); it may hold a password."""
    sparrow_data_dir: Path = Path("data")
    """Folder of the SQLite database and the saved sidebar settings."""
    sparrow_db_retry_s: float = Field(default=30.0, ge=0)
    """Seconds a run keeps retrying, in all, a database that fails its writes."""
    sparrow_replica_id: str | None = None
    """This replica's name in run claims (default: the host name)."""
    sparrow_admins: CommaList = ()
    """Admins besides ``[sparrow] admins``: verified emails or owner keys ``ISSUER#SUBJECT``."""
    sparrow_memory_scope: str | None = None
    """The long-term memory scope runs use (default ``default``); 1-64 letters, digits or ``_ . @ : -``."""

    # --- tools ----------------------------------------------------------------------------------------------------
    sparrow_tools: CommaList = ()
    """Plugin tool modules or ``.py`` files."""
    sparrow_plugin_workers: int = Field(default=2, ge=1)
    """Worker processes for plugin tools."""
    sparrow_plugin_processes: bool = True
    """False (``0``): plugin tools run in the app's own process, for debugging one."""
    sparrow_mcp_config: Path | None = None
    """The MCP servers file (default: ``./mcp.json`` when there is one)."""
    sparrow_http_timeout: float | None = Field(default=None, gt=0, le=300)
    """Seconds per request of the web tools (default 20)."""
    sparrow_search_provider: str | None = None
    """``duckduckgo``, ``tavily`` or ``brave`` (default: the first with a key, else DuckDuckGo)."""
    tavily_api_key: str | None = Field(default=None, repr=False)
    """Key for Tavily search."""
    brave_api_key: str | None = Field(default=None, repr=False)
    """Key for Brave search."""
    sparrow_duckduckgo_url: str | None = None
    """Another DuckDuckGo HTML endpoint (a mirror, a test server)."""
    sparrow_tavily_url: str | None = None
    """Another Tavily search endpoint."""
    sparrow_brave_url: str | None = None
    """Another Brave search endpoint."""
    sparrow_geocoding_url: str | None = None
    """Another Open-Meteo geocoding endpoint."""
    sparrow_forecast_url: str | None = None
    """Another Open-Meteo forecast endpoint."""
    sparrow_weather_archive_url: str | None = None
    """Another Open-Meteo archive endpoint."""
    sparrow_fetch_allow_private: bool = False
    """True: ``fetch_url`` may reach private and loopback addresses (only in a trusted sandbox)."""
    sparrow_fetch_allowed_networks: CommaList = ()
    """Address ranges ``fetch_url`` may reach besides public addresses."""
    sparrow_fetch_max_bytes: int | None = Field(default=None, ge=1)
    """Bytes of a page ``fetch_url`` reads at most (default 1 MB)."""

    # --- costs and experiments ------------------------------------------------------------------------------------
    sparrow_prices: str | None = None
    """JSON of model -> price (USD per million tokens) over the built-in catalogue."""
    sparrow_judge_model: str | None = None
    """The model that judges ``expect.judge`` items (on ``OPENAI_BASE_URL``)."""
    sparrow_scorers: CommaList = ()
    """Modules or ``.py`` files that register custom scorers."""

    # --- the built-in small model and the terminal ---------------------------------------------------------------
    sparrow_llama_dir: Path | None = None
    """Where the llama.cpp server build and the model are kept (default ``~/.cache/sparrow/llama``)."""
    llama_server: Path | None = None
    """A ``llama-server`` binary to use instead of one on PATH or in the cache."""
    sparrow_llama_threads: int = Field(default=1, ge=1)
    """Threads of the local model server."""

    no_color: str | None = None
    """Any non-empty value: the CLI's live trace is printed without colour (no-color.org)."""

    # --- live trace export (the OpenTelemetry variables Sparrow reads to build its exporter) ----------------------
    otel_exporter_otlp_endpoint: str | None = None
    """OTLP/HTTP receiver base URL (``/v1/traces`` is added): every run's spans go out live."""
    otel_exporter_otlp_traces_endpoint: str | None = None
    """The full traces URL (wins over ``OTEL_EXPORTER_OTLP_ENDPOINT``)."""
    otel_sdk_disabled: bool = False
    """True: no live export."""
    otel_traces_exporter: str | None = None
    """``none``: no live export."""
    otel_service_name: str | None = None
    """The service name on spans (default ``sparrow``)."""
    otel_resource_attributes: str | None = None
    """More resource attributes, ``key=value`` pairs separated by commas."""
    otel_bsp_schedule_delay: str | None = None
    """Milliseconds a finished span may wait to be batched (default 1000)."""
    otel_instrumentation_genai_capture_message_content: bool = False
    """True: spans carry prompts, replies and tool I/O."""
    otel_exporter_otlp_protocol: str | None = None
    """``http/protobuf`` (default) or ``http/json``."""
    otel_exporter_otlp_traces_protocol: str | None = None
    """The same, for traces only (wins)."""
    otel_exporter_otlp_headers: str | None = Field(default=None, repr=False)
    """Headers sent with every request (``Authorization=Basic ...``), percent-encoded ``key=value`` pairs."""
    otel_exporter_otlp_traces_headers: str | None = Field(default=None, repr=False)
    """The same, for traces only (wins)."""
    otel_exporter_otlp_timeout: str | None = None
    """Milliseconds one request may take (default 10000)."""
    otel_exporter_otlp_traces_timeout: str | None = None
    """The same, for traces only (wins)."""
    otel_exporter_otlp_compression: str | None = None
    """``gzip`` or ``none``."""
    otel_exporter_otlp_traces_compression: str | None = None
    """The same, for traces only (wins)."""
    otel_exporter_otlp_certificate: str | None = None
    """A CA bundle to trust for an https receiver."""
    otel_exporter_otlp_traces_certificate: str | None = None
    """The same, for traces only (wins)."""
    otel_exporter_otlp_client_certificate: str | None = None
    """A client certificate (PEM) for mutual TLS."""
    otel_exporter_otlp_traces_client_certificate: str | None = None
    """The same, for traces only (wins)."""
    otel_exporter_otlp_client_key: str | None = Field(default=None, repr=False)
    """The client certificate's private key (PEM)."""
    otel_exporter_otlp_traces_client_key: str | None = Field(default=None, repr=False)
    """The same, for traces only (wins)."""

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """The values given, then the process environment: Sparrow reads no ``.env`` file and no secrets folder."""
        return init_settings, env_settings

    def otlp(self, name: str) -> str:
        """``OTEL_EXPORTER_OTLP_TRACES_<NAME>`` if set, else ``OTEL_EXPORTER_OTLP_<NAME>``, else ``""``."""
        name = name.lower()
        return getattr(self, f"otel_exporter_otlp_traces_{name}") or getattr(self, f"otel_exporter_otlp_{name}") or ""


VARIABLES: tuple[str, ...] = tuple(name.upper() for name in EnvSettings.model_fields)
"""The variables, as they are spelt in the environment."""


def env_settings(environ: Mapping[str, str] | None = None) -> EnvSettings:
    """The settings of ``environ`` (default: the process environment, read again when one of its variables changed).

    EnvSettingsError names the first variable whose value does not fit its field.
    """
    source = os.environ if environ is None else environ
    return _settings(tuple(map(source.get, VARIABLES)))


@functools.lru_cache(maxsize=32)
def _settings(values: tuple[str | None, ...]) -> EnvSettings:
    given = {name.lower(): value for name, value in zip(VARIABLES, values, strict=True) if value and value.strip()}
    try:
        # Every field given (the defaults under what is set): a mapping passed in stands for the whole environment.
        return EnvSettings(**{**_defaults(), **given})
    except ValidationError as exc:
        raise EnvSettingsError(_sentence(exc)) from None


@functools.cache
def _defaults() -> dict[str, Any]:
    return {name: field.get_default() for name, field in EnvSettings.model_fields.items()}


_KINDS = {
    "int_parsing": "a whole number",
    "int_from_float": "a whole number",
    "float_parsing": "a number",
    "bool_parsing": "true or false (1/0, yes/no, on/off)",
}


def _sentence(exc: ValidationError) -> str:
    """The first problem as one sentence: ``SPARROW_X must be a number, got 'x'``."""
    error = exc.errors()[0]
    variable = str(error["loc"][0]).upper() if error["loc"] else "a variable"
    value = error.get("input")
    kind = _KINDS.get(error["type"])
    if kind is None:
        kind = error["msg"][0].lower() + error["msg"][1:]
        kind = kind.removeprefix("input should be ")
    return f"{variable} must be {kind}, got {value!r}"
