"""An OTLP/HTTP traces receiver on 127.0.0.1 for tests: decodes protobuf and JSON bodies, keeps what arrived.

JSON bodies are parsed strictly against the protobuf schema (unknown fields are refused with a 400), after
turning the hex ids of OTLP/JSON into the base64 of the protobuf JSON mapping, so a wrong field name in
Sparrow's encoder fails the tests.
"""

from __future__ import annotations

import base64
import gzip
import json
import ssl
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from google.protobuf import json_format
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2

from tests.observability.span_dicts import plain, spans_of


@dataclass(frozen=True)
class Received:
    """One export request."""

    path: str
    content_type: str
    headers: dict[str, str]
    resource: dict[str, Any]
    spans: list[dict[str, Any]]
    at: float
    """time.monotonic() at arrival."""


@dataclass
class OtlpReceiver:
    """``with OtlpReceiver() as receiver:`` — then point OTEL_EXPORTER_OTLP_ENDPOINT at ``receiver.base_url``."""

    tls: tuple[str, str] | None = None
    """(certificate file, key file) to serve https instead of http."""
    requests: list[Received] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)
    arrived: threading.Condition = field(default_factory=threading.Condition)

    def __post_init__(self) -> None:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        if self.tls is not None:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(*self.tls)
            self._server.socket = context.wrap_socket(self._server.socket, server_side=True)

    @property
    def base_url(self) -> str:
        """Value for OTEL_EXPORTER_OTLP_ENDPOINT."""
        scheme = "https" if self.tls else "http"
        return f"{scheme}://127.0.0.1:{self._server.server_address[1]}"

    def spans(self) -> list[dict[str, Any]]:
        """Every span received so far, in arrival order."""
        with self.arrived:
            return [span for request in self.requests for span in request.spans]

    def wait_for(self, predicate: Callable[[list[dict[str, Any]]], bool], timeout: float = 10.0) -> bool:
        """Wait until ``predicate(spans)`` holds; False after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        with self.arrived:
            while not predicate(self.spans()):
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self.arrived.wait(left)
        return True

    def keep(self, received: Received) -> None:
        """Record a decoded request and wake the waiters."""
        with self.arrived:
            self.requests.append(received)
            self.arrived.notify_all()

    def __enter__(self) -> OtlpReceiver:
        threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


def _handler(receiver: OtlpReceiver) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        """POST /…: an ExportTraceServiceRequest, protobuf or JSON."""

        def log_message(self, format: str, *args: Any) -> None:
            """Stay quiet."""

        def do_POST(self) -> None:
            """Decode, keep, answer like a collector."""
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            if self.headers.get("Content-Encoding") == "gzip":
                body = gzip.decompress(body)
            content_type = self.headers.get("Content-Type", "")
            try:
                request = decode(body, content_type)
            except Exception as exc:
                receiver.rejected.append(f"{type(exc).__name__}: {exc}")
                self._reply(400, b"bad request", "text/plain")
                return
            headers = {k.lower(): v for k, v in self.headers.items()}
            resource = {a.key: plain(a.value) for a in request.resource_spans[0].resource.attributes}
            received = Received(self.path, content_type, headers, resource, spans_of(request), time.monotonic())
            receiver.keep(received)
            self._reply(200, trace_service_pb2.ExportTraceServiceResponse().SerializeToString(), content_type)

        def _reply(self, status: int, payload: bytes, content_type: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

    return Handler


def decode(body: bytes, content_type: str) -> Any:
    """An ExportTraceServiceRequest from either OTLP/HTTP encoding."""
    message = trace_service_pb2.ExportTraceServiceRequest()
    if content_type == "application/x-protobuf":
        message.ParseFromString(body)
        return message
    if content_type != "application/json":
        raise ValueError(f"unexpected content type {content_type!r}")
    document = json.loads(body)
    for resource in document["resourceSpans"]:
        for scope in resource["scopeSpans"]:
            for span in scope["spans"]:
                for key in ("traceId", "spanId", "parentSpanId"):
                    if key in span:
                        span[key] = base64.b64encode(bytes.fromhex(span[key])).decode()
    return json_format.ParseDict(document, message)  # strict: an unknown field raises
