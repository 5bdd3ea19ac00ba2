"""One OTLP/HTTP export request: spans encoded as protobuf or JSON, POSTed once, never retried.

JSON is the document of :func:`~agent_core.trace_export.otlp.otlp_request` (no extra package needed);
protobuf comes from the OpenTelemetry SDK's own encoder (the ``otel`` extra). The SDK's exporter is not
used for sending: it retries a refused connection for its whole timeout, and a dead collector must cost
a run nothing.
"""

from __future__ import annotations

import gzip
import importlib
import json
import ssl
import urllib.error
import urllib.request
from collections.abc import Sequence
from types import ModuleType

from agent_core.trace_export.otel import SpanData
from agent_core.trace_export.otlp import (
    INSTALL_HINT,
    OtelExportError,
    OtelUnavailable,
    otlp_request,
    resource_attributes,
    scope,
)
from agent_core.trace_export.otlp_env import ExportTarget


def encode(spans: Sequence[SpanData], target: ExportTarget) -> tuple[bytes, str]:
    """The request body and its content type."""
    resource = {**resource_attributes(target.service_name), **dict(target.resource)}
    if target.protocol == "http/json":
        request = otlp_request(spans, service_name=target.service_name)
        attributes = [{"key": k, "value": {"stringValue": str(v)}} for k, v in resource.items()]
        request["resourceSpans"][0]["resource"]["attributes"] = attributes
        return json.dumps(request, ensure_ascii=False).encode(), "application/json"
    return _proto_module().encode_protobuf(spans, resource, scope()), "application/x-protobuf"


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


def _proto_module() -> ModuleType:
    try:
        return importlib.import_module("agent_core.trace_export.otlp_proto")
    except ImportError as exc:
        raise OtelUnavailable(
            f"OTLP http/protobuf needs the optional OpenTelemetry packages ({exc.name} is missing): {INSTALL_HINT}; "
            "or set OTEL_EXPORTER_OTLP_PROTOCOL=http/json, which needs nothing extra."
        ) from None
