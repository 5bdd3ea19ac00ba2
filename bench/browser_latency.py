"""Token latency in the browser: from the model server sending a token to the text appearing on the page.

A fake OpenAI-compatible server on 127.0.0.1 streams a final answer one token every 50 ms and notes when it
wrote each one; ``streamlit run app.py`` is pointed at it; headless Debian chromium (Playwright) asks the
question and a MutationObserver notes when each token first shows in the chat. Both clocks are this
machine's wall clock. Prints p50 / p95 / max of the delay (target: p95 <= 100 ms).

    python bench/browser_latency.py [--tokens 60] [--runs 2] [--interval 0.05]
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = os.environ.get("SPARROW_CHROMIUM", "/usr/bin/chromium")
MODEL = "bench-model"
STEADY_AFTER_S = 0.25
"""Tokens sent this long after the first are "steady": the page's rerun that shows the new turn is over."""
OBSERVER = """() => {
  window.__seen = {};
  const note = () => {
    const text = document.body.innerText;
    for (const m of text.matchAll(/tk(\\d{4})/g)) {
      if (!(m[1] in window.__seen)) window.__seen[m[1]] = Date.now();
    }
  };
  new MutationObserver(note).observe(document.body, {subtree: true, childList: true, characterData: true});
}"""


class TokenServer(ThreadingHTTPServer):
    """Streams ``tokens`` tokens per chat completion, ``interval`` seconds apart; ``sent`` maps token -> time."""

    def __init__(self, tokens: int, interval: float) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.tokens, self.interval = tokens, interval
        self.sent: dict[str, float] = {}
        self.run = 0

    @property
    def base_url(self) -> str:
        """The /v1 endpoint."""
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class _Handler(BaseHTTPRequestHandler):
    server: TokenServer

    def log_message(self, *args: Any) -> None:
        """Quiet."""

    def do_GET(self) -> None:
        """``/v1/models``."""
        self._json({"object": "list", "data": [{"id": MODEL, "object": "model", "created": 0, "owned_by": "bench"}]})

    def do_POST(self) -> None:
        """A streamed chat completion: a ReAct final answer, one token per interval."""
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.server.run += 1
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        self._chunk("Thought: streaming.\nFinal Answer:")
        for index in range(self.server.tokens):
            token = f"{self.server.run}{index:03d}"
            time.sleep(self.server.interval)
            self._chunk(f" tk{token}")
            self.server.sent[token] = time.time()
        self._chunk(None, finish="stop")
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()

    def _chunk(self, text: str | None, finish: str | None = None) -> None:
        delta = {"content": text} if text is not None else {}
        body = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": MODEL}
        body["choices"] = [{"index": 0, "delta": delta, "finish_reason": finish}]
        self.wfile.write(f"data: {json.dumps(body)}\n\n".encode())
        self.wfile.flush()

    def _json(self, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start_app(base_url: str, data_dir: str) -> tuple[subprocess.Popen[bytes], str]:
    """``streamlit run app.py`` on a free local port, pointed at ``base_url``; returns it and its URL."""
    port = _free_port()
    env = {**os.environ, "OPENAI_BASE_URL": base_url, "OPENAI_API_KEY": "sk-bench", "SPARROW_MODEL": MODEL}
    env |= {"SPARROW_DATA_DIR": data_dir, "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false"}
    env.pop("DATABASE_URL", None)
    command = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port)]
    command += ["--server.address", "127.0.0.1", "--server.headless", "true"]
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    for _ in range(200):
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2):
                return process, url
        except OSError:
            time.sleep(0.3)
    process.terminate()
    raise RuntimeError("streamlit did not start")


def measure(url: str, server: TokenServer, runs: int) -> tuple[list[float], list[float]]:
    """Ask ``runs`` questions in one tab; the delay of every token, and of those after the first 250 ms, in ms."""
    from playwright.sync_api import sync_playwright

    delays: list[float] = []
    steady: list[float] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--headless=new"])
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.set_default_timeout(60_000)
        page.goto(url)
        page.get_by_placeholder("Ask anything…").wait_for()
        page.evaluate(OBSERVER)
        for run in range(1, runs + 1):
            box = page.get_by_placeholder("Ask anything…")
            box.fill(f"Stream run {run}")
            box.press("Enter")
            last = f"tk{run}{server.tokens - 1:03d}"
            page.get_by_role("group", name="Chat message from assistant").get_by_text(last).first.wait_for()
            page.wait_for_timeout(300)
            seen: dict[str, float] = page.evaluate("() => window.__seen")
            for token, shown in sorted(seen.items()):
                if token.startswith(str(run)) and token in server.sent:
                    delays.append(shown - server.sent[token] * 1000)
                    if int(token[-3:]) * server.interval >= STEADY_AFTER_S:
                        steady.append(delays[-1])
            page.get_by_placeholder("Ask anything…").wait_for()
        browser.close()
    return delays, steady


def main() -> None:
    """Run the benchmark and print the delays."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=60)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--interval", type=float, default=0.05)
    args = parser.parse_args()
    server = TokenServer(args.tokens, args.interval)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    with tempfile.TemporaryDirectory() as data_dir:
        process, url = start_app(server.base_url, data_dir)
        try:
            delays, steady = measure(url, server, args.runs)
        finally:
            process.terminate()
            process.wait(timeout=10)
            server.shutdown()
    if not delays or not steady:
        raise SystemExit("no token was seen on the page")
    print(f"tokens measured: {len(delays)} over {args.runs} runs (one every {args.interval * 1000:.0f} ms)")
    p95 = report("server send -> text on page, every token", delays)
    report(f"  tokens after the first {STEADY_AFTER_S * 1000:.0f} ms of a run", steady)
    print(f"target p95 <= 100 ms (every token): {'met' if p95 <= 100 else 'NOT met'}")


def report(title: str, delays: list[float]) -> float:
    """Print p50 / p95 / max of ``delays``; returns the p95."""
    ordered = sorted(delays)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    print(f"{title}: p50 {statistics.median(ordered):.0f} ms · p95 {p95:.0f} ms · max {ordered[-1]:.0f} ms")
    return p95


if __name__ == "__main__":
    main()
