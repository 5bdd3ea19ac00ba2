"""Sending spans with the OpenTelemetry SDK's OTLP/HTTP exporter; importing this module needs the ``otel`` extra.

Live spans and re-sent ones take the same road: Sparrow's :class:`SpanData` become the SDK's ``ReadableSpan``
and go through ``OTLPSpanExporter``, which retries 429/502/503/504 and refused connections with backoff
(honouring ``Retry-After``), compresses, and presents client certificates. The SDK has no OTLP/JSON exporter:
for ``http/json`` the same exporter posts the same request in the OTLP/JSON encoding instead of protobuf.
"""

from __future__ import annotations

import base64
import json
import logging
import re
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import requests
from google.protobuf.json_format import MessageToDict
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.exporter.otlp.proto.http import Compression
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult
from opentelemetry.sdk.util.instrumentation import InstrumentationScope
from opentelemetry.trace import SpanContext, SpanKind, Status, StatusCode, TraceFlags

from agent_core.trace_export.otel import AttributeValue, SpanData
from agent_core.trace_export.otlp import ExportTarget

_KINDS = {"internal": SpanKind.INTERNAL, "client": SpanKind.CLIENT}
SDK_LOGGERS = ("opentelemetry.exporter.otlp.proto.http.trace_exporter", "opentelemetry.exporter.otlp.common.http")
"""Where the exporter reports a failed or retried request (collected and told once by Sparrow instead)."""


class JsonSpanExporter(OTLPSpanExporter):
    """The SDK's OTLP/HTTP exporter (retries, compression, TLS) posting OTLP/JSON instead of protobuf."""

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        """Encode as OTLP/JSON and post through the SDK's client."""
        body = json.dumps(otlp_json(encode_spans(spans)), ensure_ascii=False).encode()
        return SpanExportResult.SUCCESS if self._client.export(body).success else SpanExportResult.FAILURE


def otlp_json(request: Any) -> dict[str, Any]:
    """An ``ExportTraceServiceRequest`` message in the OTLP/JSON encoding (ids as hex, enums as numbers)."""
    data: dict[str, Any] = MessageToDict(request, use_integers_for_enums=True)
    for resource in data.get("resourceSpans", ()):
        for scope in resource.get("scopeSpans", ()):
            for span in scope.get("spans", ()):
                for holder in (span, *span.get("links", ())):
                    for key in ("traceId", "spanId", "parentSpanId"):
                        if key in holder:
                            holder[key] = base64.b64decode(holder[key]).hex()
    return data


def exporter_for(target: ExportTarget) -> OTLPSpanExporter:
    """The SDK exporter for ``target`` (its protocol, headers, timeout, compression and certificates)."""
    headers = dict(target.headers)
    if target.protocol == "http/json":
        headers["content-type"] = "application/json"
    kind = JsonSpanExporter if target.protocol == "http/json" else OTLPSpanExporter
    session = None
    if target.certificate or target.client_certificate:
        session = requests.Session()
        session.trust_env = False  # else $REQUESTS_CA_BUNDLE wins over the session's CA file (requests#3829)
    return kind(
        session=session,
        endpoint=target.endpoint,
        certificate_file=target.certificate,
        client_key_file=target.client_key,
        client_certificate_file=target.client_certificate,
        headers=headers,
        timeout=target.timeout,
        compression=Compression.Gzip if target.gzip else Compression.NoCompression,
    )


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


def as_readable(
    spans: Sequence[SpanData], resource: Mapping[str, AttributeValue], scope: tuple[str, str | None]
) -> list[ReadableSpan]:
    """``spans`` with their resource and scope, ready for an SDK exporter."""
    return readable_spans(spans, Resource(dict(resource)), InstrumentationScope(*scope))


def export(spans: Sequence[ReadableSpan], target: ExportTarget) -> str | None:
    """Send ``spans`` in one export (with the SDK's retries); None when accepted, else why not."""
    exporter = exporter_for(target)
    try:
        with reported() as problems:
            accepted = exporter.export(spans) is SpanExportResult.SUCCESS
    finally:
        exporter.shutdown()
    return None if accepted else problem_of(problems, target.endpoint)


_REFUSED = re.compile(r"Failed to export \w+ batch code: (\d+), reason: (.*)")
_TLS = re.compile(r"\[SSL: [A-Z_]+\][^'\")]*")
_RETRYING = re.compile(r"Transient error (.*) encountered while exporting \w+ batch, retrying in .*", re.S)


def problem_of(messages: Sequence[str], endpoint: str) -> str:
    """One sentence from the exporter's messages about one failed export: ``cannot reach …``, ``… refused …``."""
    text = next((m for m in messages if "due to timeout, max retries or shutdown" not in m), "")
    if not text:
        return f"no answer from {endpoint} in time" if messages else f"{endpoint} did not take the spans"
    if refused := _REFUSED.match(text):
        return f"{endpoint} refused the spans ({refused[1]} {refused[2]})"
    if tls := _TLS.search(text):
        return f"cannot reach {endpoint} securely ({tls[0]})"
    if "Connection refused" in text or "NewConnectionError" in text or "Name or service not known" in text:
        return f"cannot reach {endpoint} (connection refused or no such host)"
    if retrying := _RETRYING.match(text):
        text = retrying[1]
    return f"{endpoint}: {' '.join(text.split())[:300]}"


_capturing = threading.local()


class _Collect(logging.Filter):
    """Keeps the exporter's messages for the export running in this thread and stops them there."""

    def filter(self, record: logging.LogRecord) -> bool:
        """False (dropped) while this thread is inside :func:`reported`."""
        messages: list[str] | None = getattr(_capturing, "messages", None)
        if messages is None:
            return True
        messages.append(record.getMessage())
        if (heard := getattr(_capturing, "heard", None)) is not None:
            heard(messages)
        return False


_FILTER = _Collect()
for _name in SDK_LOGGERS:
    logging.getLogger(_name).addFilter(_FILTER)


@contextmanager
def reported(heard: Callable[[list[str]], None] | None = None) -> Iterator[list[str]]:
    """Collect (and silence) what the exporter logs in this thread meanwhile; ``heard`` is told at each message."""
    _capturing.messages, _capturing.heard = messages, _ = [], heard
    try:
        yield messages
    finally:
        _capturing.messages = _capturing.heard = None


def bounded(work: Callable[[], object], timeout: float) -> bool:
    """Run ``work`` in a daemon thread and wait at most ``timeout`` seconds; True when it finished."""
    thread = threading.Thread(target=work, name="sparrow-otlp-wait", daemon=True)
    thread.start()
    thread.join(max(timeout, 0.0))
    return not thread.is_alive()


def _context(trace_id: str, span_id: str) -> SpanContext:
    return SpanContext(int(trace_id, 16), int(span_id, 16), is_remote=False, trace_flags=TraceFlags(TraceFlags.SAMPLED))


MAX_QUEUE = 20_000
"""Spans waiting beyond this are dropped (a receiver far slower than the agent)."""
MAX_BATCH = 512
"""Spans per request at most."""
log = logging.getLogger("agent_core.trace_export.sending")


class LiveSender:
    """The SDK's batch processor in front of the exporter: a run only queues spans; they leave from its thread."""

    def __init__(self, target: ExportTarget, resource: Mapping[str, AttributeValue], scope: tuple[str, str | None]):
        self._exporter = _Reporting(exporter_for(target), target.endpoint)
        self._processor = BatchSpanProcessor(
            self._exporter,
            max_queue_size=MAX_QUEUE,
            schedule_delay_millis=target.delay * 1000,
            max_export_batch_size=MAX_BATCH,
        )
        self._resource, self._scope = Resource(dict(resource)), InstrumentationScope(*scope)

    @property
    def warned(self) -> bool:
        """True once an export failed (and was reported, once)."""
        return self._exporter.warned

    def add(self, spans: Sequence[SpanData]) -> None:
        """Queue finished spans; never blocks beyond a lock (a full queue drops them)."""
        for span in readable_spans(spans, self._resource, self._scope):
            self._processor.on_end(span)

    def flush(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds until what is queued has been exported (or given up); True if so."""
        return bounded(self._processor.force_flush, timeout)

    def close(self, timeout: float) -> None:
        """Send what is left, waiting at most ``timeout`` seconds, then stop (a retry still waiting is cut short)."""
        if not bounded(self._processor.shutdown, timeout):
            self._exporter.shutdown()


class _Reporting(SpanExporter):
    """An exporter that tells the first failure as one warning of Sparrow's (later ones only at debug level)."""

    def __init__(self, inner: OTLPSpanExporter, endpoint: str) -> None:
        self.inner, self.endpoint = inner, endpoint
        self.warned = self._closed = False

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        """Export through the SDK; a failure is reported, never raised."""
        with reported(self._heard) as problems:
            result = self.inner.export(spans)
        if result is not SpanExportResult.SUCCESS:
            self._failed(problem_of(problems, self.endpoint))
        return result

    def _heard(self, messages: list[str]) -> None:
        """An unreachable receiver is told at once (its retries may wait past the process's exit); a 503 or 429
        is told only if its retries fail too."""
        problem = problem_of(messages, self.endpoint)
        if not self.warned and problem.startswith("cannot reach"):
            self._failed(problem)

    def _failed(self, problem: str) -> None:
        if self.warned:
            log.debug("live trace export: %s", problem)
            return
        self.warned = True
        log.warning(
            "live trace export: %s; each batch is retried with backoff, then dropped, without further warnings. "
            "Runs are not affected.",
            problem,
        )

    def shutdown(self) -> None:
        """Stop the exporter once (this also ends a retry that is waiting)."""
        if not self._closed:
            self._closed = True
            self.inner.shutdown()

    def force_flush(self, timeout_millis: int = 30_000) -> bool:
        """Nothing is buffered here."""
        return True
