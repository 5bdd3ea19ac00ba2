"""Trace export: the event log as JSON Lines, OpenTelemetry spans (OTLP/JSON, or sent to an endpoint), Markdown,
a self-contained HTML report. Every exporter takes a list of events, which may hold several runs (a whole session),
and may name who started each run; ``export_trace`` is the one door of ``sessions export-trace``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from agent_core.events import Event
from agent_core.trace_export.html import to_html
from agent_core.trace_export.jsonl import Starters, event_line, read_jsonl, to_jsonl, write_jsonl
from agent_core.trace_export.markdown import ReportLimits, to_markdown
from agent_core.trace_export.otel import SpanData, build_spans, provider_for
from agent_core.trace_export.otlp import otlp_endpoint, otlp_request, to_otlp_json
from agent_core.trace_export.sending import OtelExportError, OtelUnavailable, otel_sdk_available, send_otlp, send_spans

ExportFormat = Literal["jsonl", "otel", "md", "html"]
FORMATS: tuple[ExportFormat, ...] = ("jsonl", "otel", "md", "html")
"""The formats of ``sessions export-trace --format``."""
EXTENSIONS: dict[ExportFormat, str] = {"jsonl": ".jsonl", "otel": ".otlp.json", "md": ".md", "html": ".html"}
"""A fitting file name extension for each format."""


def export_trace(
    events: Sequence[Event], fmt: ExportFormat, *, starters: Starters | None = None, **options: Any
) -> str:
    """The events in ``fmt`` as text; ``options`` go to the format's function (to_otlp_json, to_markdown, to_html).

    ``starters`` (run id → who started it) names each run's starter, in every format.
    """
    starters = starters or {}
    if fmt == "jsonl":
        if options:
            raise TypeError(f"the jsonl format takes no options, got {sorted(options)}")
        return to_jsonl(events, starters)
    if fmt == "otel":
        return to_otlp_json(events, starters=starters, **options)
    if fmt == "md":
        return to_markdown(events, starters=starters, **options)
    if fmt == "html":
        return to_html(events, starters=starters, **options)
    raise ValueError(f"unknown trace format {fmt!r}; expected one of: {', '.join(FORMATS)}")


__all__ = [
    "EXTENSIONS",
    "FORMATS",
    "ExportFormat",
    "OtelExportError",
    "OtelUnavailable",
    "ReportLimits",
    "SpanData",
    "Starters",
    "build_spans",
    "event_line",
    "export_trace",
    "otel_sdk_available",
    "otlp_endpoint",
    "otlp_request",
    "provider_for",
    "read_jsonl",
    "send_otlp",
    "send_spans",
    "to_html",
    "to_jsonl",
    "to_markdown",
    "to_otlp_json",
    "write_jsonl",
]
