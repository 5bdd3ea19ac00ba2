"""A real HTTP server speaking the OpenAI chat-completions API on 127.0.0.1, for tests and demos of failure.

It streams SSE chunks (text, reasoning_content, tool calls, a usage chunk), honours ``stop``, and can
inject HTTP errors, delays and stalls, so the real ``openai`` client is exercised end to end. It can also
refuse ``response_format`` types, as servers without structured output do.
"""

from __future__ import annotations

import argparse
import json
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from agent_core.models.chat import estimate_messages, estimate_tokens
from agent_core.testing.fake_models import Reply, ReplyLike, apply_stop, as_reply, split_chunks

Responder = Callable[[dict[str, Any]], ReplyLike]
"""Computes a reply from the request body (a dict with ``messages``, ``model``, ``tools``...)."""


class FakeOpenAIServer:
    """``with FakeOpenAIServer(replies) as server: OpenAIChatModel(base_url=server.base_url)``."""

    def __init__(
        self,
        replies: Iterable[ReplyLike] | Responder = (),
        *,
        models: Iterable[str] = ("gpt-4o-mini", "fake-model"),
        api_key: str | None = None,
        honor_stop: bool = True,
        port: int = 0,
        response_formats: Iterable[str] | None = None,
        web_page: str | None = None,
    ) -> None:
        self.responder: Responder | None = replies if callable(replies) else None
        self._queue: deque[Reply] = deque() if callable(replies) else deque(as_reply(r) for r in replies)
        self.models = list(models)
        self.api_key = api_key
        self.honor_stop = honor_stop
        self.accepted_formats = None if response_formats is None else set(response_formats)
        """``response_format`` types served (e.g. ``{"json_object"}``); others get a 400 like OpenAI's. None: all."""
        self.web_page = web_page
        """When set, every request gets this HTML page with status 200 (a base URL that is a website)."""
        self.requests: list[dict[str, Any]] = []
        self.keys_seen: list[str | None] = []
        """The ``Authorization`` header of every request received (GET and POST), in order."""
        self.closing = threading.Event()
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", port), _handler_for(self))
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        """The TCP port the server listens on."""
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        """Value for OPENAI_BASE_URL."""
        return f"http://127.0.0.1:{self.port}/v1"

    def add(self, *replies: ReplyLike) -> None:
        """Queue more replies."""
        with self._lock:
            self._queue.extend(as_reply(r) for r in replies)

    @property
    def remaining(self) -> int:
        """Queued replies not served yet."""
        return len(self._queue)

    def start(self) -> FakeOpenAIServer:
        """Serve in a background thread."""
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, name="fake-openai", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and release stalled requests."""
        self.closing.set()
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def response_formats(self) -> list[dict[str, Any] | None]:
        """The ``response_format`` of every request received (None where there was none), refused ones included."""
        with self._lock:
            return [body.get("response_format") for body in self.requests]

    def refuses(self, body: dict[str, Any]) -> str | None:
        """The error message for a ``response_format`` this server does not serve (the request is recorded)."""
        kind = (body.get("response_format") or {}).get("type")
        if kind is None or self.accepted_formats is None or kind in self.accepted_formats:
            return None
        with self._lock:
            self.requests.append(body)
        return f"Invalid parameter: 'response_format' of type '{kind}' is not supported with this model."

    def next_reply(self, body: dict[str, Any]) -> Reply:
        """The reply for a request: from the responder, else the queue, else a clear 500."""
        with self._lock:
            self.requests.append(body)
            if self.responder is not None:
                return as_reply(self.responder(body))
            if self._queue:
                return self._queue.popleft()
        return Reply(status=500, text="FakeOpenAIServer has no scripted reply left")


class _Handler(BaseHTTPRequestHandler):
    """Serves the OpenAI routes of the fake server it is bound to (``fake``)."""

    protocol_version = "HTTP/1.1"
    fake: FakeOpenAIServer

    def log_message(self, format: str, *args: Any) -> None:
        return

    def handle(self) -> None:
        try:
            super().handle()
        except (BrokenPipeError, ConnectionResetError):
            return  # the client went away (an abandoned reader, a cancelled or timed-out call)

    def _note_key(self) -> None:
        with self.fake._lock:
            self.fake.keys_seen.append(self.headers.get("Authorization"))

    def do_GET(self) -> None:
        self._note_key()
        if self.fake.web_page is not None:
            self._raw(self.fake.web_page, "text/html; charset=utf-8")
            return
        if not self._authorised():
            return
        if self.path.rstrip("/").endswith("/models"):
            data = [{"id": m, "object": "model", "created": 0, "owned_by": "fake"} for m in self.fake.models]
            self._json(200, {"object": "list", "data": data})
        else:
            self._error(404, f"no route {self.path}")

    def do_POST(self) -> None:
        self._note_key()
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if self.fake.web_page is not None:
            with self.fake._lock:
                self.fake.requests.append({"path": self.path})
            self._raw(self.fake.web_page, "text/html; charset=utf-8")
            return
        body = self._chat_request(raw)
        if body is not None:
            self._reply(body, self.fake.next_reply(body))

    def _chat_request(self, raw: bytes) -> dict[str, Any] | None:
        """The request body of a valid chat-completions call, or None after answering with the error."""
        if not self._authorised():
            return None
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._error(404, f"no route {self.path}")
            return None
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            self._error(400, "request body is not JSON")
            return None
        if body.get("model") not in self.fake.models:
            self._error(404, f"The model `{body.get('model')}` does not exist", "model_not_found")
            return None
        if refusal := self.fake.refuses(body):
            self._error(400, refusal, "invalid_parameter")
            return None
        return body

    def _reply(self, body: dict[str, Any], reply: Reply) -> None:
        if reply.delay and self.fake.closing.wait(reply.delay):
            return
        if reply.status is not None:
            self._error(reply.status, reply.text or f"injected error {reply.status}")
            return
        if reply.raw_body is not None:
            self._raw(reply.raw_body, reply.content_type)
            return
        text = apply_stop(reply.text, body.get("stop")) if self.fake.honor_stop else reply.text
        if body.get("stream"):
            self._stream(body, reply, text)
        else:
            self._json(200, _completion(body, reply, text))

    def _authorised(self) -> bool:
        if self.fake.api_key is None or self.headers.get("Authorization") == f"Bearer {self.fake.api_key}":
            return True
        self._error(401, "Incorrect API key provided", "invalid_api_key")
        return False

    def _json(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    def _error(self, status: int, message: str, code: str | None = None) -> None:
        # retry-after-ms keeps the openai client's backoff short in tests.
        payload = {"error": {"message": message, "type": "fake_error", "code": code}}
        self._json(status, payload, {"retry-after-ms": "10"})

    def _raw(self, text: str, content_type: str) -> None:
        data = text.encode()
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _stream(self, body: dict[str, Any], reply: Reply, text: str) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        try:
            for line in _sse_lines(body, reply, text, self.fake.closing):
                self.wfile.write(line)
                self.wfile.flush()
                if reply.stall:
                    self.fake.closing.wait(3600)
                    return
                if reply.chunk_delay and self.fake.closing.wait(reply.chunk_delay):
                    return
            if reply.no_done:
                self.fake.closing.wait(3600)
                return
            if reply.drop_after is not None:
                return  # the connection closes mid-reply
            self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            return  # the client went away (cancelled or timed out)


def _handler_for(server: FakeOpenAIServer) -> type[BaseHTTPRequestHandler]:
    return type("Handler", (_Handler,), {"fake": server})


def _sse_lines(body: dict[str, Any], reply: Reply, text: str, closing: threading.Event) -> Iterator[bytes]:
    """The ``data:`` lines of a streamed reply, with the injected faults (bad chunk, endless text)."""
    for index, chunk in enumerate(_chunks(body, reply, text)):
        if reply.drop_after is not None and index >= reply.drop_after:
            return
        if reply.empty_choices:
            chunk = {**chunk, "choices": []}
        if reply.endless and chunk["choices"] and chunk["choices"][0].get("finish_reason"):
            break
        yield f"data: {json.dumps(chunk)}\n\n".encode()
        if index == 0 and reply.bad_chunk is not None:
            yield f"data: {reply.bad_chunk}\n\n".encode()
    if reply.endless:
        ident = f"chatcmpl-{uuid.uuid4().hex[:12]}"
        piece = {
            **_base(body, ident),
            "choices": [{"index": 0, "delta": {"content": "and more "}, "finish_reason": None}],
        }
        line = f"data: {json.dumps(piece)}\n\n".encode()
        while not closing.is_set():  # until the client goes away (a write fails) or the server stops
            yield line


def _usage(body: dict[str, Any], reply: Reply, text: str) -> dict[str, Any]:
    prompt, completion = reply.usage or (estimate_messages(body.get("messages", [])), estimate_tokens(text) + 1)
    usage = {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}
    return {**usage, **(reply.usage_details or {})}


def _tool_calls(reply: Reply) -> list[dict[str, Any]]:
    return [
        {"index": i, "id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
        for i, c in enumerate(reply.calls())
    ]


def _base(body: dict[str, Any], ident: str) -> dict[str, Any]:
    return {"id": ident, "object": "chat.completion.chunk", "created": int(time.time()), "model": body["model"]}


def _chunks(body: dict[str, Any], reply: Reply, text: str) -> Iterable[dict[str, Any]]:
    ident = f"chatcmpl-{uuid.uuid4().hex[:12]}"

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {**_base(body, ident), "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    yield chunk({"role": "assistant", "content": ""})
    for piece in split_chunks(reply.reasoning):
        yield chunk({"reasoning_content": piece})
    for piece in split_chunks(text):
        yield chunk({"content": piece})
    for call in _tool_calls(reply):
        name_part = {**call, "function": {"name": call["function"]["name"], "arguments": ""}}
        yield chunk({"tool_calls": [name_part]})
        args = call["function"]["arguments"]
        for start in range(0, len(args), 16):
            yield chunk({"tool_calls": [{"index": call["index"], "function": {"arguments": args[start : start + 16]}}]})
    yield chunk({}, "tool_calls" if reply.tool_calls else "stop")
    if (body.get("stream_options") or {}).get("include_usage") and not reply.omit_usage:
        yield {**_base(body, ident), "choices": [], "usage": _usage(body, reply, text)}


def _completion(body: dict[str, Any], reply: Reply, text: str) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": text or None}
    if reply.reasoning:
        message["reasoning_content"] = reply.reasoning
    if reply.tool_calls:
        message["tool_calls"] = [{k: v for k, v in c.items() if k != "index"} for c in _tool_calls(reply)]
    result: dict[str, Any] = {
        "id": f"chatcmpl-{uuid.uuid4().hex[:12]}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body["model"],
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if reply.tool_calls else "stop"}],
    }
    if not reply.omit_usage:
        result["usage"] = _usage(body, reply, text)
    return result


def main(argv: list[str] | None = None) -> None:
    """Serve a JSON file of scripted replies: ``python -m agent_core.testing.fake_server replies.json``."""
    parser = argparse.ArgumentParser(description="Fake OpenAI-compatible server for tests (scripted replies).")
    parser.add_argument("script", help='JSON list of replies: strings or {"text", "tool_calls", ...} objects')
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args(argv)
    with open(args.script, encoding="utf-8") as handle:
        items = json.load(handle)
    replies = [
        Reply(**{**item, "tool_calls": tuple(tuple(c) for c in item.get("tool_calls", []))})
        if isinstance(item, dict)
        else str(item)
        for item in items
    ]
    server = FakeOpenAIServer(replies, port=args.port).start()
    print(server.base_url, flush=True)
    try:
        while server.remaining:
            time.sleep(0.2)
        time.sleep(1.0)
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()


if __name__ == "__main__":
    main()
