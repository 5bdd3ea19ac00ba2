"""Sparrow's spans in the OTLP protobuf encoding, by the OpenTelemetry SDK's own encoder (needs the ``otel`` extra)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.util.instrumentation import InstrumentationScope

from agent_core.trace_export.otel import AttributeValue, SpanData
from agent_core.trace_export.otel_sdk import readable_spans


def encode_protobuf(
    spans: Sequence[SpanData], resource: Mapping[str, AttributeValue], scope: tuple[str, str | None]
) -> bytes:
    """A serialized ``ExportTraceServiceRequest`` holding ``spans``."""
    readable = readable_spans(spans, Resource(dict(resource)), InstrumentationScope(*scope))
    return bytes(encode_spans(readable).SerializeToString())
