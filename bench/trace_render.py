"""Time to build the timeline and the metrics of runs of 10, 100 and 1,000 steps (target: ≤ 300 ms for 1,000).

Each run is produced by a real Agent driven by a ScriptedModel (streamed deltas, messages, tool calls and
all), so the event mix is what the Traces page sees. As the page does, the events are folded once into a
Transcript and both views are read off it: the columns are the fold, each view, and their total. Prints one
line per size with the cost per step, so linear growth shows as a flat µs/step column.

    .venv/bin/python bench/trace_render.py [--steps 10 100 1000] [--repeat 5] [--check]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence

from agent_core import Agent
from agent_core.engine.state import RunState
from agent_core.events import Event
from agent_core.testing import ScriptedModel
from agent_core.tools import builtin_tools
from agent_core.views.metrics import turn_metrics
from agent_core.views.timeline import turn_timeline
from agent_core.views.transcript import Transcript

TARGET_STEPS, TARGET_MS = 1000, 300.0


def run_of(steps: int) -> list[Event]:
    """Events of one run: ``steps - 1`` calculator steps, then a final answer."""
    replies = [
        f'Thought: step {n}, keep adding.\nAction: calculator\nAction Input: {{"expression": "{n} + 1"}}'
        for n in range(1, steps)
    ]
    replies.append("Thought: that is enough.\nFinal Answer: done")
    agent = Agent(ScriptedModel(replies), builtin_tools(), max_steps=steps, time_limit=None)
    return list(agent.run("Count up."))


def best_ms(work: Callable[[], object], repeat: int) -> float:
    """The fastest of ``repeat`` timings, in ms."""
    timings = []
    for _ in range(repeat):
        begin = time.perf_counter()
        work()
        timings.append((time.perf_counter() - begin) * 1000)
    return min(timings)


def main(argv: Sequence[str] | None = None) -> int:
    """Print the table; with --check, exit 1 when the 1,000-step run misses the target."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, nargs="+", default=[10, 100, 1000])
    parser.add_argument("--repeat", type=int, default=5, help="timings per size; the best one is kept")
    parser.add_argument("--check", action="store_true", help=f"fail if {TARGET_STEPS:,} steps take > {TARGET_MS:g} ms")
    args = parser.parse_args(argv)

    header = ("steps", "events", "fold ms", "timeline ms", "metrics ms", "total ms", "µs/step", "ratio")
    print(" ".join(f"{h:>{w}}" for h, w in zip(header, (6, 8, 8, 12, 11, 9, 8, 6), strict=True)))
    first: float | None = None
    results: dict[int, float] = {}
    for steps in args.steps:
        events = run_of(steps)
        fold = best_ms(lambda ev=events: Transcript.from_events(ev), args.repeat)
        turn = Transcript.from_events(events).run()
        assert isinstance(turn, RunState)
        timeline = best_ms(lambda t=turn: turn_timeline(t), args.repeat)
        metrics = best_ms(lambda t=turn: turn_metrics(t), args.repeat)
        total = fold + timeline + metrics
        per_step = total * 1000 / steps
        first = first or per_step
        results[steps] = total
        print(
            f"{steps:>6,} {len(events):>8,} {fold:>8.2f} {timeline:>12.2f} {metrics:>11.2f} {total:>9.2f} "
            f"{per_step:>8.1f} {per_step / first:>5.2f}x"
        )
    print("ratio: µs/step relative to the first size (≈1 or lower means linear or better)")
    if TARGET_STEPS in results:
        ok = results[TARGET_STEPS] <= TARGET_MS
        verdict = "OK" if ok else "MISSED"
        print(f"target: {TARGET_STEPS:,} steps in ≤ {TARGET_MS:g} ms → {results[TARGET_STEPS]:.1f} ms {verdict}")
        if args.check and not ok:
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
