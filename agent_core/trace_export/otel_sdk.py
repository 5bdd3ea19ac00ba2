"""Sending spans with the OpenTelemetry SDK's OTLP/HTTP exporter; importing this module needs the ``otel`` extra."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExportResult
from opentelemetry.sdk.util.instrumentation import InstrumentationScope
from opentelemetry.trace import SpanContext, SpanKind, Status, StatusCode, TraceFlags

from agent_core.trace_export.otel import AttributeValue, SpanData

_KINDS = {"internal": SpanKind.INTERNAL, "client": SpanKind.CLIENT}


def export(
    spans: Sequence[SpanData],
    resource: Mapping[str, AttributeValue],
    scope: tuple[str, str | None],
    endpoint: str | None,
    headers: Mapping[str, str] | None,
    timeout: float,
) -> bool:
    """Export ``spans`` in one request; True when the endpoint accepted them."""
    readable = readable_spans(spans, Resource.create(dict(resource)), InstrumentationScope(*scope))
    exporter = OTLPSpanExporter(endpoint=endpoint, headers=headers, timeout=timeout)
    try:
        return exporter.export(readable) is SpanExportResult.SUCCESS
    finally:
        exporter.shutdown()


def readable_spans(spans: Sequence[SpanData], resource: Resource, scope: InstrumentationScope) -> list[ReadableSpan]:
    """SpanData → the SDK's ReadableSpan, keeping Sparrow's ids and times."""
    return [
        ReadableSpan(
            name=s.name,
            context=_context(s.trace_id, s.span_id),
            parent=_context(s.trace_id, s.parent_span_id) if s.parent_span_id else None,
            resource=resource,
            attributes=dict(s.attributes),
            kind=_KINDS[s.kind],
            instrumentation_scope=scope,
            status=Status(StatusCode.ERROR, s.error) if s.error else Status(StatusCode.UNSET),
            start_time=s.start_ns,
            end_time=s.end_ns,
        )
        for s in spans
    ]


def _context(trace_id: str, span_id: str) -> SpanContext:
    return SpanContext(int(trace_id, 16), int(span_id, 16), is_remote=False, trace_flags=TraceFlags(TraceFlags.SAMPLED))
