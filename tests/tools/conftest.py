"""Fixtures for the web tools: a real HTTP server on 127.0.0.1 whose answers each test scripts."""

from __future__ import annotations

import gzip
import json
import socket
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

WEB_ENV = (
    "SPARROW_SEARCH_PROVIDER",
    "TAVILY_API_KEY",
    "BRAVE_API_KEY",
    "SPARROW_DUCKDUCKGO_URL",
    "SPARROW_TAVILY_URL",
    "SPARROW_BRAVE_URL",
    "SPARROW_GEOCODING_URL",
    "SPARROW_FORECAST_URL",
    "SPARROW_WEATHER_ARCHIVE_URL",
    "SPARROW_FETCH_ALLOW_PRIVATE",
    "SPARROW_FETCH_ALLOWED_NETWORKS",
    "SPARROW_FETCH_MAX_BYTES",
    "SPARROW_HTTP_TIMEOUT",
    "SPARROW_TOOLS",
)


@dataclass
class Reply:
    """What the fake server answers."""

    status: int = 200
    body: bytes | str | dict[str, Any] | list[Any] = b""
    headers: dict[str, str] = field(default_factory=dict)
    content_type: str | None = None
    delay: float = 0.0
    """Seconds to wait before the status line."""
    drip: float = 0.0
    """Seconds to wait between body chunks."""
    chunk: int = 16 * 1024
    gzip: bool = False

    def payload(self) -> tuple[bytes, str]:
        """The body bytes and their default content type."""
        if isinstance(self.body, dict | list):
            return json.dumps(self.body).encode(), "application/json"
        if isinstance(self.body, str):
            return self.body.encode(), "text/html; charset=utf-8"
        return self.body, "application/octet-stream"


@dataclass(frozen=True)
class Seen:
    """A request the fake server received."""

    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        """The body parsed as JSON."""
        return json.loads(self.body)

    def form(self) -> dict[str, str]:
        """The body parsed as a url-encoded form."""
        return {k: v[0] for k, v in parse_qs(self.body.decode(), keep_blank_values=True).items()}


Handler = Reply | Callable[[Seen], Reply]


class FakeWeb:
    """A threaded HTTP server on 127.0.0.1: ``route(path, reply)``, then point a tool at ``url``."""

    def __init__(self) -> None:
        self.routes: dict[tuple[str, str], Handler] = {}
        self.requests: list[Seen] = []
        self.closing = threading.Event()
        self._server = _QuietServer(("127.0.0.1", 0), _handler_class(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.02,), name="fake-web", daemon=True)

    @property
    def port(self) -> int:
        """The port the server listens on."""
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        """Base URL, without a trailing slash."""
        return f"http://127.0.0.1:{self.port}"

    def route(self, path: str, reply: Handler, *, method: str = "GET") -> None:
        """Answer ``method path`` with ``reply`` (or with what the callable returns for the request)."""
        self.routes[(method, path)] = reply

    def paths(self) -> list[str]:
        """The paths requested so far, in order."""
        return [seen.path for seen in self.requests]

    def start(self) -> FakeWeb:
        """Serve in a background thread."""
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and release delayed answers at once."""
        self.closing.set()
        self._server.shutdown()
        self._server.server_close()


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        """Clients that hang up early (size limit, timeouts) are expected; stay quiet."""


def _handler_class(web: FakeWeb) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self._serve()

        def do_POST(self) -> None:
            self._serve()

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _serve(self) -> None:
            parts = urlsplit(self.path)
            length = int(self.headers.get("Content-Length") or 0)
            query = {k: v[0] for k, v in parse_qs(parts.query, keep_blank_values=True).items()}
            seen = Seen(self.command, parts.path, query, dict(self.headers.items()), self.rfile.read(length))
            web.requests.append(seen)
            handler = web.routes.get((self.command, parts.path), Reply(404, {"error": "no such route"}))
            reply = handler(seen) if callable(handler) else handler
            if reply.delay and web.closing.wait(reply.delay):
                return
            self._send(reply)

        def _send(self, reply: Reply) -> None:
            body, default_type = reply.payload()
            if reply.gzip:
                body = gzip.compress(body)
                self.send_response(reply.status)
                self.send_header("Content-Encoding", "gzip")
            else:
                self.send_response(reply.status)
            self.send_header("Content-Type", reply.content_type or default_type)
            self.send_header("Content-Length", str(len(body)))
            for name, value in reply.headers.items():
                self.send_header(name, value)
            self.end_headers()
            for start in range(0, len(body), reply.chunk):
                if start and reply.drip and web.closing.wait(reply.drip):
                    return
                self.wfile.write(body[start : start + reply.chunk])
                self.wfile.flush()

    return Handler


@pytest.fixture
def fake_web() -> Iterator[FakeWeb]:
    """A started FakeWeb, stopped after the test."""
    web = FakeWeb().start()
    yield web
    web.stop()


@pytest.fixture
def closed_port() -> int:
    """A local port with nothing listening: connecting to it is refused at once."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(autouse=True)
def _no_web_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts without the web tools' environment variables (keys, base URLs, switches)."""
    for name in WEB_ENV:
        monkeypatch.delenv(name, raising=False)
