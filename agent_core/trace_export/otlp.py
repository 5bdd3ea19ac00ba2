"""OTLP for Sparrow's spans: the OTLP/JSON document (no SDK needed), and sending it over OTLP/HTTP with the SDK.

The JSON follows the OTLP/JSON encoding of ``ExportTraceServiceRequest``: ``resourceSpans`` →
``scopeSpans`` → ``spans``, ids as hex strings, times as decimal strings of Unix nanoseconds, enums as
numbers and attributes as ``{"key", "value": {"stringValue" | "intValue" | ...}}``. It can be POSTed as is
to a collector's ``/v1/traces`` with ``Content-Type: application/json``.

Sending uses the optional ``opentelemetry-sdk`` and ``opentelemetry-exporter-otlp-proto-http`` packages
(``pip install 'sparrow-agent[otel]'``), the same way for live spans and re-sent ones (see ``otel_sdk``), with
the standard ``OTEL_EXPORTER_OTLP_*`` variables (endpoint, protocol, headers, compression, certificates).
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Iterable, Mapping, Sequence
from importlib import metadata
from types import ModuleType
from typing import Any

from agent_core.env_settings import env_settings
from agent_core.events import Event
from agent_core.trace_export.otel import AttributeValue, SpanData, build_spans
from agent_core.trace_export.otlp_env import SERVICE_NAME as SERVICE_NAME  # re-exported: the default service.name
from agent_core.trace_export.otlp_env import endpoint_of as endpoint_of

SCOPE_NAME = "agent_core.trace_export"
"""Instrumentation scope of the spans."""
ENDPOINT_ENV = "OTEL_EXPORTER_OTLP_ENDPOINT"
"""Base URL of an OTLP/HTTP receiver (``/v1/traces`` is appended), e.g. ``http://localhost:4318``."""
TRACES_ENDPOINT_ENV = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
"""Full URL for traces; wins over ``OTEL_EXPORTER_OTLP_ENDPOINT``."""
INSTALL_HINT = "pip install 'sparrow-agent[otel]'  (opentelemetry-sdk, opentelemetry-exporter-otlp-proto-http)"

_KINDS = {"internal": 1, "client": 3}
"""OTLP ``Span.SpanKind`` numbers."""
_STATUS_UNSET, _STATUS_ERROR = 0, 2


class OtelUnavailable(ImportError):
    """Sending spans needs the optional OpenTelemetry packages, which are not installed."""


class OtelExportError(RuntimeError):
    """The OTLP endpoint did not accept the spans."""


def otlp_request(spans: Sequence[SpanData], *, service_name: str = SERVICE_NAME) -> dict[str, Any]:
    """An ``ExportTraceServiceRequest`` in the OTLP/JSON encoding."""
    scope: dict[str, Any] = {"name": SCOPE_NAME}
    if version := _version():
        scope["version"] = version
    return {
        "resourceSpans": [
            {
                "resource": {"attributes": _attributes(_resource_attributes(service_name))},
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
    return _resource_attributes(service_name)


def scope() -> tuple[str, str | None]:
    """The instrumentation scope of Sparrow's spans: name and version."""
    return SCOPE_NAME, _version()


def _resource_attributes(service_name: str) -> dict[str, AttributeValue]:
    attributes: dict[str, AttributeValue] = {"service.name": service_name}
    if version := _version():
        attributes["service.version"] = version
    return attributes


def _version() -> str | None:
    try:
        return metadata.version("sparrow-agent")
    except metadata.PackageNotFoundError:
        return None


def otlp_endpoint(environ: Mapping[str, str] | None = None) -> str | None:
    """The traces URL the standard variables point at, or None when neither is set."""
    return endpoint_of(env_settings(environ))


def otel_sdk_available() -> bool:
    """True when the optional packages needed by :func:`send_otlp` are installed."""
    try:
        sdk_module()
    except OtelUnavailable:
        return False
    return True


def sdk_module() -> ModuleType:
    """The module that sends with the SDK, imported on demand (it needs the optional packages)."""
    try:
        return importlib.import_module("agent_core.trace_export.otel_sdk")
    except ImportError as exc:
        raise OtelUnavailable(
            f"sending traces to an OTLP endpoint needs the optional OpenTelemetry packages ({exc.name} is missing): "
            f"{INSTALL_HINT}. Without them, export OTLP/JSON to a file instead."
        ) from None
