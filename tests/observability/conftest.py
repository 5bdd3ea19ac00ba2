"""Fixtures for the observability tests: a stub OTLP/HTTP collector on 127.0.0.1."""

from __future__ import annotations

import gzip
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest


@dataclass
class Collector:
    """What the stub received; set ``status`` to make it refuse requests."""

    port: int
    requests: list[Any] = field(default_factory=list)
    """Each POST body decoded as an ``ExportTraceServiceRequest``."""
    paths: list[str] = field(default_factory=list)
    content_types: list[str] = field(default_factory=list)
    status: int = 200
    answers: list[tuple[int, dict[str, str]]] = field(default_factory=list)
    """Statuses (and headers, e.g. Retry-After) to answer first, one per request, before ``status``."""
    arrivals: list[float] = field(default_factory=list)
    """``time.monotonic()`` of each request."""

    @property
    def base_url(self) -> str:
        """Value for OTEL_EXPORTER_OTLP_ENDPOINT."""
        return f"http://127.0.0.1:{self.port}"


OTLP_SETTINGS = [
    f"OTEL_EXPORTER_OTLP_{signal}{name}"
    for signal in ("", "TRACES_")
    for name in ("ENDPOINT", "HEADERS", "COMPRESSION", "TIMEOUT", "CERTIFICATE")
]
"""A developer's own OTLP settings that would redirect or alter what the tests send."""


@pytest.fixture
def collector(monkeypatch: pytest.MonkeyPatch) -> Iterator[Collector]:
    """A tiny OTLP/HTTP receiver that decodes protobuf trace exports (skipped without opentelemetry-proto)."""
    service = pytest.importorskip("opentelemetry.proto.collector.trace.v1.trace_service_pb2")
    for name in OTLP_SETTINGS:
        monkeypatch.delenv(name, raising=False)
    state = Collector(port=0)

    class Handler(BaseHTTPRequestHandler):
        """Receives POST /v1/traces."""

        timeout = 5

        def log_message(self, format: str, *args: Any) -> None:
            """Stay quiet."""

        def do_POST(self) -> None:
            """Decode and keep one export request, or refuse it."""
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            if self.headers.get("Content-Encoding") == "gzip":
                body = gzip.decompress(body)
            state.paths.append(self.path)
            state.content_types.append(self.headers.get("Content-Type", ""))
            state.arrivals.append(time.monotonic())
            status, headers = state.answers.pop(0) if state.answers else (state.status, {})
            if status != 200:
                self._reply(status, b"refused by the test collector", "text/plain", headers)
                return
            state.requests.append(service.ExportTraceServiceRequest.FromString(body))
            self._reply(200, service.ExportTraceServiceResponse().SerializeToString(), "application/x-protobuf")

        def _reply(self, status: int, payload: bytes, content_type: str, headers: dict[str, str] | None = None) -> None:
            self.send_response(status)
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    state.port = int(server.server_address[1])
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), name="otlp-collector-stub", daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
