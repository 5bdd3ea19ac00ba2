"""What live OpenTelemetry export costs a run: a scripted calculator run with and without it.

Modes: no endpoint; a receiver on 127.0.0.1 (http/protobuf, http/json, http/json with message content);
a dead endpoint (closed port). The receiver runs in its own process, as a collector would, and answers 200.
The time is that of the run as its consumer sees it (every event iterated); spans are built and sent in
the exporter's thread, which is only waited for at the end (the flush an exiting CLI does).

    python bench/live_export.py [--steps 10] [--runs 50]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import platform
import socket
import statistics
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from agent_core import Agent
from agent_core.testing import ScriptedModel
from agent_core.tools import calculator
from agent_core.trace_export.otlp import CAPTURE_CONTENT_ENV
from agent_core.trace_export.sending import close_all, live_export

STEP = 'Thought: add one more\nAction: calculator\nAction Input: {"expression": "40 + 2"}'


class Sink(BaseHTTPRequestHandler):
    """Accepts every export request."""

    def log_message(self, format: str, *args: Any) -> None:
        """Stay quiet."""

    def do_POST(self) -> None:
        """Read the body, answer 200."""
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()


def serve(ports: multiprocessing.Queue[int]) -> None:
    """The receiver process."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), Sink)
    ports.put(int(server.server_address[1]))
    server.serve_forever()


def one_run(steps: int, env: dict[str, str] | None) -> float:
    """Seconds for one run of ``steps`` steps, events consumed as they come."""
    model = ScriptedModel([STEP] * (steps - 1) + ["Thought: done\nFinal Answer: 42"], keep_requests=1)
    agent = Agent(model, [calculator], max_steps=steps, time_limit=None)
    started = time.perf_counter()
    events = agent.run("count") if env is None else live_export(agent.run("count"), environ=env, session_id="b")
    for _ in events:
        pass
    return time.perf_counter() - started


def measure(steps: int, runs: int, env: dict[str, str] | None) -> tuple[float, float]:
    """Median ms per run, and ms for the final flush."""
    one_run(steps, env)  # warm up
    times = [one_run(steps, env) for _ in range(runs)]
    started = time.perf_counter()
    close_all(timeout=10)
    return statistics.median(times) * 1000, (time.perf_counter() - started) * 1000


def main() -> None:
    """Print ms per run and µs of overhead per step for each mode."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--runs", type=int, default=50)
    args = parser.parse_args()
    ports: multiprocessing.Queue[int] = multiprocessing.Queue()
    receiver = multiprocessing.Process(target=serve, args=(ports,), daemon=True)
    receiver.start()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        dead_port = probe.getsockname()[1]
    live = {"OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{ports.get(timeout=30)}"}
    modes: dict[str, dict[str, str] | None] = {
        "off": None,
        "http/protobuf": {**live, "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf"},
        "http/json": {**live, "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"},
        "json+content": {**live, "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json", CAPTURE_CONTENT_ENV: "true"},
        "dead endpoint": {"OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{dead_port}"},
    }
    print(f"Python {platform.python_version()} on {platform.machine()} · {args.steps} steps/run · {args.runs} runs")
    print(f"{'mode':<16}{'ms/run':>9}{'µs/step over off':>18}{'final flush ms':>16}")
    results: dict[str, float] = {}
    for name, env in modes.items():
        per_run, flush = measure(args.steps, args.runs, env)
        results[name] = per_run
        extra = (per_run - results["off"]) * 1000 / args.steps
        print(f"{name:<16}{per_run:>9.2f}{extra:>18.0f}{flush:>16.1f}")
    receiver.terminate()
    print(json.dumps({"ms_per_run": {k: round(v, 2) for k, v in results.items()}}))


if __name__ == "__main__":
    main()
