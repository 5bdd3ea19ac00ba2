"""Where live trace export sends spans, read from the standard OpenTelemetry variables.

``OTEL_EXPORTER_OTLP_TRACES_*`` wins over ``OTEL_EXPORTER_OTLP_*`` for the endpoint, protocol, headers,
timeout, compression, CA certificate and client certificate and key. ``OTEL_SERVICE_NAME`` names the service and
``OTEL_RESOURCE_ATTRIBUTES`` adds resource attributes (e.g. Phoenix's ``openinference.project.name``);
``OTEL_BSP_SCHEDULE_DELAY``
(milliseconds) is how long spans may wait to be batched. ``OTEL_SDK_DISABLED=true`` or
``OTEL_TRACES_EXPORTER=none`` turn export off. Message content is sent only when
``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`` (or the caller opts in).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal
from urllib.parse import unquote

from agent_core.env_settings import EnvSettings, env_settings

SERVICE_NAME = "sparrow"
"""Default ``service.name`` of the resource (when ``OTEL_SERVICE_NAME`` is not set)."""


def endpoint_of(env: EnvSettings) -> str | None:
    """The traces URL of these settings: ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT``, else the base URL's ``/v1/traces``."""
    if url := env.otel_exporter_otlp_traces_endpoint:
        return url
    if base := env.otel_exporter_otlp_endpoint:
        return base.rstrip("/") + "/v1/traces"
    return None


Protocol = Literal["http/protobuf", "http/json"]
PROTOCOLS: tuple[Protocol, ...] = ("http/protobuf", "http/json")
CAPTURE_CONTENT_ENV = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
"""The GenAI conventions' opt-in for prompts, replies, tool arguments and results on spans."""
DEFAULT_TIMEOUT_S = 10.0
DEFAULT_DELAY_S = 1.0


class OtlpConfigError(ValueError):
    """An OTEL_* variable holds a value Sparrow cannot use; the message names it."""


@dataclass(frozen=True)
class ExportTarget:
    """An OTLP/HTTP traces receiver and how to talk to it."""

    endpoint: str
    """The full traces URL (``…/v1/traces``)."""
    protocol: Protocol = "http/protobuf"
    headers: tuple[tuple[str, str], ...] = ()
    """Sent with every request (e.g. ``Authorization`` for Langfuse)."""
    service_name: str = SERVICE_NAME
    resource: tuple[tuple[str, str], ...] = ()
    """More resource attributes, from ``OTEL_RESOURCE_ATTRIBUTES``."""
    timeout: float = DEFAULT_TIMEOUT_S
    """Seconds one request may take."""
    gzip: bool = False
    certificate: str | None = None
    """A CA bundle to trust for an https endpoint."""
    delay: float = DEFAULT_DELAY_S
    """Seconds a finished span may wait to be sent with others."""
    client_certificate: str | None = None
    """A client certificate (PEM) for a receiver that asks for one (mutual TLS)."""
    client_key: str | None = None
    """The client certificate's private key (PEM)."""


def export_target(environ: Mapping[str, str] | EnvSettings | None = None) -> ExportTarget | None:
    """The receiver the variables point at; None when no endpoint is set or export is turned off."""
    env = environ if isinstance(environ, EnvSettings) else env_settings(environ)
    endpoint = endpoint_of(env)
    if endpoint is None or env.otel_sdk_disabled or env.otel_traces_exporter == "none":
        return None
    resource = parse_pairs(env.otel_resource_attributes or "", "OTEL_RESOURCE_ATTRIBUTES")
    return ExportTarget(
        endpoint=endpoint,
        protocol=_protocol(env),
        headers=parse_headers(env.otlp("HEADERS")),
        service_name=env.otel_service_name or dict(resource).get("service.name") or SERVICE_NAME,
        resource=tuple((k, v) for k, v in resource if k != "service.name"),
        timeout=_milliseconds(env, "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "OTEL_EXPORTER_OTLP_TIMEOUT")
        or DEFAULT_TIMEOUT_S,
        gzip=_compression(env),
        certificate=env.otlp("CERTIFICATE") or None,
        delay=_milliseconds(env, "OTEL_BSP_SCHEDULE_DELAY") or DEFAULT_DELAY_S,
        client_certificate=env.otlp("CLIENT_CERTIFICATE") or None,
        client_key=env.otlp("CLIENT_KEY") or None,
    )


def capture_content(environ: Mapping[str, str] | None = None) -> bool:
    """True when the user opted in to message content on spans."""
    return env_settings(environ).otel_instrumentation_genai_capture_message_content


def parse_headers(text: str) -> tuple[tuple[str, str], ...]:
    """``key1=value1,key2=value2`` (values percent-encoded, as the OTLP exporter spec says) as pairs."""
    return parse_pairs(text, "OTEL_EXPORTER_OTLP_HEADERS")


def parse_pairs(text: str, variable: str) -> tuple[tuple[str, str], ...]:
    """Comma-separated ``key=value`` pairs, percent-decoded; OtlpConfigError names ``variable`` if one is not."""
    pairs = []
    for item in text.split(","):
        if not item.strip():
            continue
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise OtlpConfigError(f"{variable}: {item.strip()!r} is not key=value (separate pairs with commas)")
        pairs.append((unquote(key.strip()), unquote(value.strip())))
    return tuple(pairs)


def _protocol(env: EnvSettings) -> Protocol:
    value = env.otlp("PROTOCOL") or "http/protobuf"
    for known in PROTOCOLS:
        if value == known:
            return known
    hint = " (gRPC is not supported: point the endpoint at the receiver's OTLP/HTTP port, usually 4318)"
    raise OtlpConfigError(
        f"OTEL_EXPORTER_OTLP_PROTOCOL={value!r}: use http/protobuf or http/json{hint if value == 'grpc' else ''}"
    )


def _compression(env: EnvSettings) -> bool:
    value = env.otlp("COMPRESSION").lower()
    if value not in {"", "none", "gzip"}:
        raise OtlpConfigError(f"OTEL_EXPORTER_OTLP_COMPRESSION={value!r}: use gzip or none")
    return value == "gzip"


def _milliseconds(env: EnvSettings, *names: str) -> float | None:
    """Seconds from the first of ``names`` that is set (the variables hold milliseconds)."""
    for name in names:
        if text := getattr(env, name.lower()) or "":
            try:
                value = float(text)
            except ValueError:
                value = -1.0
            if value <= 0:
                raise OtlpConfigError(f"{name}={text!r}: expected a positive number of milliseconds")
            return value / 1000
    return None
