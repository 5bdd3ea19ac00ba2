"""OTLP spans as plain dicts, to compare what a receiver decoded with the spans Sparrow built.

Plain attribute access only (no protobuf import), so tests that skip without the ``otel`` extra can use it.
"""

from __future__ import annotations

from typing import Any

from agent_core.trace_export import SpanData


def plain(value: Any) -> Any:
    """An OTLP AnyValue (protobuf message) as a Python value (arrays as tuples)."""
    kind = value.WhichOneof("value")
    if kind == "array_value":
        return tuple(plain(v) for v in value.array_value.values)
    return getattr(value, kind)


def spans_of(request: Any) -> list[dict[str, Any]]:
    """Every span of an ExportTraceServiceRequest as a plain dict (ids as hex, attributes as a dict)."""
    return [
        {
            "trace": span.trace_id.hex(),
            "span": span.span_id.hex(),
            "parent": span.parent_span_id.hex() or None,
            "name": span.name,
            "kind": span.kind,
            "start": span.start_time_unix_nano,
            "end": span.end_time_unix_nano,
            "attributes": {a.key: plain(a.value) for a in span.attributes},
            "status": (span.status.code, span.status.message),
        }
        for resource in request.resource_spans
        for scope in resource.scope_spans
        for span in scope.spans
    ]


def expected_spans(spans: list[SpanData]) -> list[dict[str, Any]]:
    """What ``spans_of`` should find for Sparrow's spans."""
    return [
        {
            "trace": s.trace_id,
            "span": s.span_id,
            "parent": s.parent_span_id,
            "name": s.name,
            "kind": {"internal": 1, "client": 3}[s.kind],
            "start": s.start_ns,
            "end": s.end_ns,
            "attributes": dict(s.attributes),
            "status": (2, s.error) if s.error else (0, ""),
        }
        for s in spans
    ]
