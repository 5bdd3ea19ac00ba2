"""One OTLP/HTTP export request: spans encoded as protobuf or JSON, POSTed once, never retried.

Both encodings come from the one OTLP/JSON document of :func:`~agent_core.trace_export.otlp.otlp_request`.
Protobuf is that document parsed into ``ExportTraceServiceRequest`` by the ``opentelemetry-proto`` package
(ids turned from hex into bytes), so the two can never disagree. The SDK's own exporter is not used: it
retries a refused connection for its whole timeout, and a dead collector must cost a run nothing.
"""

from __future__ import annotations

import base64
import gzip
import importlib
import json
import ssl
import urllib.error
import urllib.request
from collections.abc import Sequence
from typing import Any

from agent_core.trace_export.otel import SpanData
from agent_core.trace_export.otlp import INSTALL_HINT, OtelExportError, OtelUnavailable, otlp_request
from agent_core.trace_export.otlp_env import ExportTarget

_ID_FIELDS = ("traceId", "spanId", "parentSpanId")


def encode(spans: Sequence[SpanData], target: ExportTarget) -> tuple[bytes, str]:
    """The request body and its content type."""
    request = otlp_request(spans, service_name=target.service_name)
    if target.protocol == "http/json":
        return json.dumps(request, ensure_ascii=False).encode(), "application/json"
    return to_protobuf(request), "application/x-protobuf"


def to_protobuf(request: dict[str, Any]) -> bytes:
    """An OTLP/JSON ``ExportTraceServiceRequest`` in the binary protobuf encoding."""
    json_format, service = _proto_modules()
    message = service.ExportTraceServiceRequest()
    json_format.ParseDict(_with_base64_ids(request), message)
    return bytes(message.SerializeToString())


def post(body: bytes, content_type: str, target: ExportTarget) -> None:
    """POST one export request; raises OtelExportError with a one-sentence reason when it is not accepted."""
    headers = {**dict(target.headers), "Content-Type": content_type, "User-Agent": "sparrow-agent"}
    if target.gzip:
        body, headers["Content-Encoding"] = gzip.compress(body), "gzip"
    request = urllib.request.Request(target.endpoint, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=target.timeout, context=_tls(target)) as response:
            response.read()
    except urllib.error.HTTPError as exc:
        detail = exc.read(300).decode("utf-8", "replace").strip()
        raise OtelExportError(
            f"{target.endpoint} refused the spans ({exc.code} {exc.reason}{': ' + detail if detail else ''})"
        ) from None
    except urllib.error.URLError as exc:
        raise OtelExportError(f"cannot reach {target.endpoint} ({exc.reason})") from None
    except (TimeoutError, OSError) as exc:
        raise OtelExportError(f"no answer from {target.endpoint} within {target.timeout:g} s ({exc})") from None


def send_batch(spans: Sequence[SpanData], target: ExportTarget) -> None:
    """Encode and POST ``spans``."""
    post(*encode(spans, target), target)


def _tls(target: ExportTarget) -> ssl.SSLContext | None:
    if not target.endpoint.startswith("https:"):
        return None
    return ssl.create_default_context(cafile=target.certificate) if target.certificate else None


def _with_base64_ids(request: dict[str, Any]) -> dict[str, Any]:
    """The protobuf JSON mapping wants bytes as base64; OTLP/JSON writes ids as hex."""
    copy = json.loads(json.dumps(request))
    for resource in copy["resourceSpans"]:
        for scope in resource["scopeSpans"]:
            for span in scope["spans"]:
                for name in _ID_FIELDS:
                    if name in span:
                        span[name] = base64.b64encode(bytes.fromhex(span[name])).decode()
    return copy


def _proto_modules() -> tuple[Any, Any]:
    try:
        json_format = importlib.import_module("google.protobuf.json_format")
        service = importlib.import_module("opentelemetry.proto.collector.trace.v1.trace_service_pb2")
    except ImportError as exc:
        raise OtelUnavailable(
            f"OTLP http/protobuf needs the optional OpenTelemetry packages ({exc.name} is missing): {INSTALL_HINT}; "
            "or set OTEL_EXPORTER_OTLP_PROTOCOL=http/json, which needs nothing extra."
        ) from None
    return json_format, service
