"""OTLP for Sparrow's spans: the OTLP/JSON document (no SDK needed), and where the standard OpenTelemetry variables say
spans go (``ExportTarget``). The JSON follows the OTLP/JSON encoding of ``ExportTraceServiceRequest``
(``resourceSpans`` → ``scopeSpans`` → ``spans``, ids as hex strings, times as decimal strings of Unix nanoseconds,
enums as numbers, attributes as ``{"key", "value": {"stringValue" | "intValue" | ...}}``) and can be POSTed as is to
a collector's ``/v1/traces``. ``OTEL_EXPORTER_OTLP_TRACES_*`` wins over ``OTEL_EXPORTER_OTLP_*`` for the endpoint,
protocol, headers, timeout, compression, CA certificate and client certificate and key; ``OTEL_SERVICE_NAME`` names
the service and ``OTEL_RESOURCE_ATTRIBUTES`` adds resource attributes (e.g. Phoenix's
``openinference.project.name``); ``OTEL_BSP_SCHEDULE_DELAY`` (milliseconds) is how long spans may wait to be
batched; ``OTEL_SDK_DISABLED=true`` or ``OTEL_TRACES_EXPORTER=none`` turn live export off; message content is sent
only when ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`` (or the caller opts in). Sending is
``sending``'s.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib import metadata
from typing import Any, Literal
from urllib.parse import unquote

from agent_core.env_settings import EnvSettings, env_settings
from agent_core.events import Event
from agent_core.trace_export.otel import AttributeValue, SpanData, build_spans

SERVICE_NAME = "sparrow"
"""Default ``service.name`` of the resource (when ``OTEL_SERVICE_NAME`` is not set)."""
SCOPE_NAME = "agent_core.trace_export"
"""Instrumentation scope of the spans."""

_KINDS = {"internal": 1, "client": 3}
"""OTLP ``Span.SpanKind`` numbers."""
_STATUS_UNSET, _STATUS_ERROR = 0, 2


def otlp_request(spans: Sequence[SpanData], *, service_name: str = SERVICE_NAME) -> dict[str, Any]:
    """An ``ExportTraceServiceRequest`` in the OTLP/JSON encoding."""
    scope: dict[str, Any] = {"name": SCOPE_NAME}
    if version := _version():
        scope["version"] = version
    return {
        "resourceSpans": [
            {
                "resource": {"attributes": _attributes(resource_attributes(service_name))},
                "scopeSpans": [{"scope": scope, "spans": [_span_json(s) for s in spans]}],
            }
        ]
    }


def to_otlp_json(
    events: Iterable[Event], *, service_name: str = SERVICE_NAME, indent: int | None = None, **span_options: Any
) -> str:
    """The spans of ``events`` as an OTLP/JSON document (``span_options`` go to :func:`build_spans`)."""
    request = otlp_request(build_spans(events, **span_options), service_name=service_name)
    return json.dumps(request, ensure_ascii=False, indent=indent)


def _span_json(span: SpanData) -> dict[str, Any]:
    data: dict[str, Any] = {"traceId": span.trace_id, "spanId": span.span_id}
    if span.parent_span_id:
        data["parentSpanId"] = span.parent_span_id
    data.update(
        name=span.name,
        kind=_KINDS[span.kind],
        startTimeUnixNano=str(span.start_ns),
        endTimeUnixNano=str(span.end_ns),
        attributes=_attributes(span.attributes),
    )
    data["status"] = {"code": _STATUS_ERROR, "message": span.error} if span.error else {"code": _STATUS_UNSET}
    return data


def _attributes(attributes: Mapping[str, AttributeValue]) -> list[dict[str, Any]]:
    return [{"key": key, "value": _any_value(value)} for key, value in attributes.items()]


def _any_value(value: AttributeValue) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}  # int64 is a string in the protobuf JSON mapping
    if isinstance(value, float):
        return {"doubleValue": value}
    if isinstance(value, str):
        return {"stringValue": value}
    return {"arrayValue": {"values": [_any_value(v) for v in value]}}


def resource_attributes(service_name: str = SERVICE_NAME) -> dict[str, AttributeValue]:
    """The resource of Sparrow's spans: ``service.name`` and ``service.version``."""
    attributes: dict[str, AttributeValue] = {"service.name": service_name}
    if version := _version():
        attributes["service.version"] = version
    return attributes


def scope() -> tuple[str, str | None]:
    """The instrumentation scope of Sparrow's spans: name and version."""
    return SCOPE_NAME, _version()


def _version() -> str | None:
    try:
        return metadata.version("sparrow-agent")
    except metadata.PackageNotFoundError:
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


def otlp_endpoint(environ: Mapping[str, str] | EnvSettings | None = None) -> str | None:
    """The traces URL the standard variables point at (``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT``, else the base URL's
    ``/v1/traces``), or None when neither is set."""
    env = environ if isinstance(environ, EnvSettings) else env_settings(environ)
    if url := env.otel_exporter_otlp_traces_endpoint:
        return url
    if base := env.otel_exporter_otlp_endpoint:
        return base.rstrip("/") + "/v1/traces"
    return None


def export_target(environ: Mapping[str, str] | EnvSettings | None = None) -> ExportTarget | None:
    """The receiver the variables point at; None when no endpoint is set or export is turned off."""
    env = environ if isinstance(environ, EnvSettings) else env_settings(environ)
    endpoint = otlp_endpoint(env)
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
