"""AppTest rerun time of the Chat page for sessions of 10, 50 and 200 turns (5 steps each), and the cost of a live
turn's redraw per new event for sessions of 10 to 500 finished turns.

A rerun happens on every click; it must not grow with the session. Prints the median of several
reruns per size and the ratio to the smallest session.

The live part asks, in a session of N finished turns, a question whose every step calls a tool that waits for an
Approve click: each click lets the live run gain one step's events (the decision, the call, the next model reply
and its next approval request), which the page folds and draws (the click's page run, the redraws while it
follows the run, the page run that asks again). The figure is that time divided by the events gained; it must
stay flat from 10 to 500 finished turns.

    python bench/ui_rerun.py [--reruns 7] [--clicks 6] [--skip-rerun]
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
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
STEPS_PER_TURN = 5
LIVE_SIZES = (10, 20, 50, 200, 500)
"""Finished turns before the live one (the Chat page draws the last 20 turns: 10 turns draw fewer)."""
LIVE_QUESTION = "Please fetch http://127.0.0.1:9/page again and again"


def turn_events(turn: int, run_id: str) -> list[Any]:
    """One turn of 4 calculator steps and a final answer, as the agent emits it (deltas dropped, as stored)."""
    from agent_core import Agent
    from agent_core.testing import ScriptedModel

    replies = [
        f'Thought: step {i}\nAction: calculator\nAction Input: {{"expression": "{turn} + {i}"}}'
        for i in range(STEPS_PER_TURN - 1)
    ] + [f"Thought: done\nFinal Answer: turn {turn} is done"]
    agent = Agent(ScriptedModel(replies, stream_chunks=False))
    events = agent.run(f"Question number {turn}: add some numbers", run_id=run_id)
    return [e for e in events if e.type != "model_delta"]


def build_session(store, turns: int, *, through_runs: bool = True) -> str:  # type: ignore[no-untyped-def]
    """A session of ``turns`` turns, each 4 calculator steps and a final answer.

    ``through_runs``: recorded like the app does (each run reads the session's memory); else the turns' events
    are appended directly (the same events, without the quadratic cost of rebuilding memory at every turn).
    """
    from agent_core import Agent
    from agent_core.engine.agent import new_run_id
    from agent_core.runtime.sessions import run_in_session
    from agent_core.testing import ScriptedModel

    session = store.sessions.create()
    for turn in range(turns):
        if not through_runs:
            store.log.append(session.id, turn_events(turn, new_run_id()))
            continue
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


def fetch_again(body: dict[str, Any]) -> Any:
    """The fake model behind LIVE_QUESTION: one fetch_url call per step, each of another page, for ever."""
    from agent_core.testing.fake_models import Reply

    page = len(body.get("messages", []))  # grows by the call and its observation at every step
    return Reply(f'Thought: once more.\nAction: fetch_url\nAction Input: {{"url": "http://127.0.0.1:9/{page}"}}')


def live_event_count(session_id: str) -> int:
    """How many events the session's live run has emitted so far (streamed text included)."""
    from sparrow_ui.shell.state import live_runs

    run = live_runs().get(session_id)
    return len(run.events) if run is not None else 0


def approve_button(app: Any) -> Any:
    """The page's Approve button, once the live run asks (a cold start may first draw the page without it)."""
    for _ in range(100):
        found = next((b for b in app.button if b.key and b.key.startswith("approve_")), None)
        if found is not None:
            return found
        time.sleep(0.1)
        app.run()
    page = [m.value for m in app.markdown][-6:] + [str(e.value) for e in (*app.error, *app.warning, *app.exception)]
    raise RuntimeError(f"the live run never asked for an approval; the page ends: {page}")


def live_redraws(session_id: str, clicks: int) -> tuple[list[float], list[float], list[int]]:
    """(wall seconds, CPU seconds of this process, new events) of each Approve click on the live turn."""
    from streamlit.testing.v1 import AppTest

    from sparrow_ui.shell.state import live_runs

    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    app.query_params["session"] = session_id
    app.run()
    app.chat_input(key="question").set_value(LIVE_QUESTION).run()
    assert not app.exception, app.exception
    times, cpu, gained = [], [], []
    for _ in range(clicks):
        approve = approve_button(app)
        before = live_event_count(session_id)
        started, used = time.perf_counter(), time.process_time()
        approve.click().run()
        times.append(time.perf_counter() - started)
        cpu.append(time.process_time() - used)
        gained.append(live_event_count(session_id) - before)
        assert not app.exception, app.exception
    run = live_runs().get(session_id)
    if run is not None:
        run.cancel()
        for button in (b for b in app.button if b.key and b.key.startswith("deny_")):
            button.click().run()
            break
        run.join(30)
    return times, cpu, gained


def live_table(store, clicks: int) -> dict[int, float]:  # type: ignore[no-untyped-def]
    """Print the live turn's cost per new event for each session size; returns µs per event by size."""
    from agent_core.testing import FakeOpenAIServer

    per_event: dict[int, float] = {}
    with FakeOpenAIServer(fetch_again) as server:
        os.environ["OPENAI_BASE_URL"], os.environ["OPENAI_API_KEY"] = server.base_url, "sk-bench"
        sessions = {n: build_session(store, n, through_runs=False) for n in LIVE_SIZES}
        live_redraws(build_session(store, 2, through_runs=False), 2)  # warm imports and caches
        print(f"\nLive turn: one Approve click → the run gains a step, folded and drawn; median of {clicks} clicks")
        print("(CPU time of the whole process per new event: the page runs, the redraws, the run and the fake model)")
        print(f"{'turns':>6}{'events':>9}{'wall ms/click':>15}{'new events':>12}", end="")
        print(f"{'CPU µs/event':>14}{'vs 10 turns':>13}")
        for n in LIVE_SIZES:
            times, cpu, gained = live_redraws(sessions[n], clicks)
            ms, new = statistics.median(times) * 1000, statistics.median(gained)
            per_event[n] = statistics.median(cpu) * 1e6 / max(new, 1)
            stored = store.sessions.get(sessions[n]).last_seq
            ratio = per_event[n] / per_event[LIVE_SIZES[0]]
            print(f"{n:>6}{stored:>9,}{ms:>15.0f}{new:>12.0f}{per_event[n]:>14.0f}{ratio:>12.2f}×")
    ratio = per_event[LIVE_SIZES[-1]] / per_event[LIVE_SIZES[0]]
    drawn = per_event[LIVE_SIZES[-1]] / per_event[20]
    verdict = "OK" if ratio <= 2 else "MISSED"
    print(f"500 vs 20 turns (both draw the last 20 turns): {drawn:.2f}×")
    print(f"target: redraw cost per new event, 500 vs 10 turns ≤ 2× (as the rerun's) → {ratio:.2f}× {verdict}")
    return per_event


def rerun_table(store, reruns: int) -> dict[int, float]:  # type: ignore[no-untyped-def]
    """Print the Chat page's rerun time for each session size; returns ms by size."""
    sizes = (10, 50, 200)
    sessions = {n: build_session(store, n) for n in sizes}
    rerun_times(sessions[10], 2)  # warm imports and caches
    print(f"Chat page rerun (AppTest), {STEPS_PER_TURN} steps per turn, median of {reruns} reruns")
    print(f"{'turns':>6}{'events':>9}{'first load ms':>15}{'rerun ms':>10}{'vs 10 turns':>13}")
    base = None
    results = {}
    for n in sizes:
        first, times = rerun_times(sessions[n], reruns)
        median = statistics.median(times) * 1000
        base = base or median
        results[n] = median
        events = store.sessions.get(sessions[n]).last_seq
        print(f"{n:>6}{events:>9,}{first * 1000:>15.0f}{median:>10.0f}{median / base:>12.2f}×")
    ratio = results[200] / results[10]
    print(f"target: 200-turn rerun ≤ 2× the 10-turn rerun → {ratio:.2f}× {'OK' if ratio <= 2 else 'MISSED'}")
    return results


def main() -> None:
    """Build the sessions in a temporary store and time the page."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--reruns", type=int, default=7)
    parser.add_argument("--clicks", type=int, default=6)
    parser.add_argument("--skip-rerun", action="store_true", help="only the live turn's table")
    args = parser.parse_args()
    logging.disable(logging.WARNING)
    os.environ["SPARROW_DATA_DIR"] = tempfile.mkdtemp(prefix="sparrow-bench-ui-")
    os.environ.pop("DATABASE_URL", None)
    from agent_core.store import SessionStore

    store = SessionStore.open()
    summary: dict[str, Any] = {}
    if not args.skip_rerun:
        results = rerun_table(store, args.reruns)
        summary |= {"rerun_ms": {str(k): round(v, 1) for k, v in results.items()}}
        summary["ratio_200_10"] = round(results[200] / results[10], 2)
    live = live_table(store, args.clicks)
    summary["live_us_per_event"] = {str(k): round(v) for k, v in live.items()}
    summary["live_ratio_500_10"] = round(live[LIVE_SIZES[-1]] / live[LIVE_SIZES[0]], 2)
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
