"""AppTest rerun time of the Chat page for sessions of 10, 50 and 200 turns (5 steps each).

A rerun happens on every click; it must not grow with the session. Prints the median of several
reruns per size and the ratio to the smallest session.

    python bench/ui_rerun.py [--reruns 7]
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import statistics
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STEPS_PER_TURN = 5


def build_session(store, turns: int) -> str:  # type: ignore[no-untyped-def]
    """A session of ``turns`` turns, each 4 calculator steps and a final answer, recorded like the app does."""
    from agent_core import Agent
    from agent_core.runtime.session_runs import run_in_session
    from agent_core.testing import ScriptedModel

    session = store.create_session()
    for turn in range(turns):
        replies = [
            f'Thought: step {i}\nAction: calculator\nAction Input: {{"expression": "{turn} + {i}"}}'
            for i in range(STEPS_PER_TURN - 1)
        ] + [f"Thought: done\nFinal Answer: turn {turn} is done"]
        agent = Agent(ScriptedModel(replies, stream_chunks=False))
        for _ in run_in_session(store, session.id, agent, f"Question number {turn}: add some numbers"):
            pass
    return session.id


def rerun_times(session_id: str, reruns: int) -> tuple[float, list[float]]:
    """(first run seconds, rerun seconds) of the Chat page showing ``session_id``."""
    from streamlit.testing.v1 import AppTest

    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    app.query_params["session"] = session_id
    started = time.perf_counter()
    app.run()
    first = time.perf_counter() - started
    assert not app.exception, app.exception
    times = []
    for _ in range(reruns):
        started = time.perf_counter()
        app.run()
        times.append(time.perf_counter() - started)
    return first, times


def main() -> None:
    """Build the three sessions in a temporary store and time the page."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--reruns", type=int, default=7)
    args = parser.parse_args()
    logging.disable(logging.WARNING)
    os.environ["SPARROW_DATA_DIR"] = tempfile.mkdtemp(prefix="sparrow-bench-ui-")
    os.environ.pop("DATABASE_URL", None)
    from agent_core.store import SessionStore

    store = SessionStore.open()
    sizes = (10, 50, 200)
    sessions = {n: build_session(store, n) for n in sizes}
    rerun_times(sessions[10], 2)  # warm imports and caches
    print(f"Chat page rerun (AppTest), {STEPS_PER_TURN} steps per turn, median of {args.reruns} reruns")
    print(f"{'turns':>6}{'events':>9}{'first load ms':>15}{'rerun ms':>10}{'vs 10 turns':>13}")
    base = None
    results = {}
    for n in sizes:
        first, times = rerun_times(sessions[n], args.reruns)
        median = statistics.median(times) * 1000
        base = base or median
        results[n] = median
        events = store.get_session(sessions[n]).last_seq
        print(f"{n:>6}{events:>9,}{first * 1000:>15.0f}{median:>10.0f}{median / base:>12.2f}×")
    ratio = results[200] / results[10]
    print(f"target: 200-turn rerun ≤ 2× the 10-turn rerun → {ratio:.2f}× {'OK' if ratio <= 2 else 'MISSED'}")
    print(json.dumps({"rerun_ms": {str(k): round(v, 1) for k, v in results.items()}, "ratio_200_10": round(ratio, 2)}))


if __name__ == "__main__":
    main()
