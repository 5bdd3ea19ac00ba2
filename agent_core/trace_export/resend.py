"""Sending a saved session's spans to an OTLP/HTTP receiver (the Traces page's Send, ``export-trace --format otel``).

The same exporter as live export (``otel_sdk``), configured by the same variables, so a session's live spans
and its re-sent ones land under the same service, in the same encoding.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from agent_core.env_settings import env_settings
from agent_core.events import Event
from agent_core.trace_export.otel import SpanData, build_spans
from agent_core.trace_export.otlp import OtelExportError, resource_attributes, scope, sdk_module
from agent_core.trace_export.otlp_env import ExportTarget, OtlpConfigError, export_target


def send_otlp(
    events: Iterable[Event],
    *,
    endpoint: str | None = None,
    headers: Mapping[str, str] | None = None,
    timeout: float | None = None,
    service_name: str | None = None,
    **span_options: Any,
) -> int:
    """Send the spans of ``events`` to an OTLP/HTTP endpoint with the SDK's exporter; returns how many were sent.

    The standard variables apply as they do to live export (endpoint, ``OTEL_EXPORTER_OTLP_PROTOCOL``,
    headers, timeout, compression, certificates, ``OTEL_SERVICE_NAME``, ``OTEL_RESOURCE_ATTRIBUTES``); the
    arguments, when given, win. Raises :class:`OtelUnavailable` without the ``otel`` extra and
    :class:`OtelExportError` when the endpoint does not accept the spans (after the SDK's retries).
    """
    return send_spans(
        build_spans(events, **span_options),
        endpoint=endpoint,
        headers=headers,
        timeout=timeout,
        service_name=service_name,
    )


def send_spans(
    spans: Sequence[SpanData],
    *,
    endpoint: str | None = None,
    headers: Mapping[str, str] | None = None,
    timeout: float | None = None,
    service_name: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> int:
    """Send already built spans (see :func:`send_otlp`)."""
    sdk = sdk_module()
    try:
        target = resend_target(environ, endpoint=endpoint, headers=headers, timeout=timeout, service_name=service_name)
    except OtlpConfigError as exc:
        raise OtelExportError(str(exc)) from None
    resource = {**resource_attributes(target.service_name), **dict(target.resource)}
    problem = sdk.export(sdk.as_readable(spans, resource, scope()), target)
    if problem is not None:
        raise OtelExportError(
            f"the OTLP endpoint {target.endpoint} did not accept {len(spans)} spans: {problem} "
            "(is an OTLP/HTTP receiver such as Jaeger, Phoenix, Langfuse or an OpenTelemetry Collector running there?)"
        )
    return len(spans)


def resend_target(environ: Mapping[str, str] | None = None, **given: Any) -> ExportTarget:
    """The live export's target (the same variables), with the ``given`` values that are not None on top."""
    env = env_settings(environ)
    env = env.model_copy(  # sending a saved trace is asked for explicitly: export may be off for live runs
        update={
            "otel_exporter_otlp_endpoint": env.otel_exporter_otlp_endpoint or "http://localhost:4318",
            "otel_sdk_disabled": False,
            "otel_traces_exporter": None,
        }
    )
    target = export_target(env)
    assert target is not None  # an endpoint is set and export is not turned off
    changes = {k: v for k, v in given.items() if v is not None}
    if "headers" in changes:
        changes["headers"] = tuple(dict(changes["headers"]).items())
    return replace(target, **changes)
