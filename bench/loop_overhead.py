"""Per-step overhead of the loop with a zero-latency scripted model, for both protocols.

Each step is a full think → act → observe cycle: a streamed model reply, parsing, argument
validation, a calculator call in its own thread, and every event. Also checks that memory stays
flat as runs get longer (the context is bounded; nothing keeps per-step copies of the history).

    python bench/loop_overhead.py [--steps 10000]
"""

from __future__ import annotations

import argparse
import gc
import json
import platform
import time
import tracemalloc

from agent_core import Agent
from agent_core.testing import Reply, ScriptedModel
from agent_core.tools import Tool, calculator

THREADED_CALCULATOR = Tool(calculator.fn, name="calculator")
"""The same calculator without ``inline``: each call hops to a worker thread, as user and web tools do."""

REACT_STEP = 'Thought: add one more\nAction: calculator\nAction Input: {"expression": "40 + 2"}'
REACT_DONE = "Thought: done\nFinal Answer: 42"


def script(protocol: str, steps: int) -> list[str | Reply]:
    """``steps - 1`` tool steps and a final answer."""
    if protocol == "react":
        return [REACT_STEP] * (steps - 1) + [REACT_DONE]
    call = Reply("add one more", tool_calls=(("calculator", {"expression": "40 + 2"}),))
    return [call] * (steps - 1) + ["42"]


def run_once(protocol: str, steps: int, tool: Tool = calculator) -> tuple[float, int]:
    """Seconds for a run of ``steps`` steps (events consumed and dropped) and the number of events."""
    model = ScriptedModel(script(protocol, steps), keep_requests=1)
    agent = Agent(model, [tool], protocol=protocol, max_steps=steps, time_limit=None)
    count = 0
    gc.collect()
    started = time.perf_counter()
    last = None
    for last in agent.run("count"):  # noqa: B007 - only the last event is inspected
        count += 1
    elapsed = time.perf_counter() - started
    assert last is not None and last.status == "completed", last  # type: ignore[attr-defined]
    return elapsed, count


def peak_memory(protocol: str, steps: int) -> int:
    """Peak bytes allocated while running ``steps`` steps (the script itself excluded)."""
    model = ScriptedModel(script(protocol, steps), keep_requests=1)
    agent = Agent(model, [calculator], protocol=protocol, max_steps=steps, time_limit=None)
    gc.collect()
    tracemalloc.start()
    baseline = tracemalloc.get_traced_memory()[0]
    for _ in agent.run("count"):
        pass
    peak = tracemalloc.get_traced_memory()[1] - baseline
    tracemalloc.stop()
    return peak


def main() -> None:
    """Print µs/step per protocol and the memory of 100- vs 1,000-step runs."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=10_000)
    args = parser.parse_args()
    machine = f"Python {platform.python_version()} on {platform.machine()}"
    print(f"{machine} · {args.steps:,} steps per run · target ≤ 200 µs/step")
    print(f"{'protocol':<10}{'steps':>8}{'events':>9}{'total s':>10}{'µs/step':>10}{'vs target':>11}")
    results = {}
    for protocol in ("react", "tools"):
        run_once(protocol, 200)  # warm up imports and caches
        elapsed, events = run_once(protocol, args.steps)
        per_step = elapsed / args.steps * 1e6
        results[protocol] = per_step
        print(f"{protocol:<10}{args.steps:>8,}{events:>9,}{elapsed:>10.2f}{per_step:>10.1f}{per_step / 200:>10.2f}×")
    print("with the tool in a worker thread (as user, web and plugin tools run):")
    for protocol in ("react", "tools"):
        elapsed, events = run_once(protocol, args.steps, THREADED_CALCULATOR)
        per_step = elapsed / args.steps * 1e6
        results[f"{protocol}_threaded"] = per_step
        print(f"{protocol:<10}{args.steps:>8,}{events:>9,}{elapsed:>10.2f}{per_step:>10.1f}{per_step / 200:>10.2f}×")
    print()
    print(f"{'protocol':<10}{'peak KiB @100':>15}{'@1,000':>9}{'@5,000':>9}{'1,000/100':>11}{'5,000/1,000':>13}")
    for protocol in ("react", "tools"):
        peaks = [peak_memory(protocol, n) / 1024 for n in (100, 1000, 5000)]
        ratios = f"{peaks[1] / peaks[0]:>10.2f}×{peaks[2] / peaks[1]:>12.2f}×"
        print(f"{protocol:<10}{peaks[0]:>15.0f}{peaks[1]:>9.0f}{peaks[2]:>9.0f}{ratios}")
    print(json.dumps({"us_per_step": {k: round(v, 1) for k, v in results.items()}}))


if __name__ == "__main__":
    main()
