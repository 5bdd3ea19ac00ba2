"""Per-step overhead of the loop with a zero-latency scripted model, side by side with the seeds' bare loops.

Each step is a full think → act → observe cycle: a streamed model reply, parsing, argument validation, a
calculator call, and every event. The seeds' loops (``seed_loops.py``: the ReAct text loop and the native
tool-calling loop Sparrow grew from) read the same scripted replies from the same fake model and call the same
calculator function, in the same process, so the ratio is what Sparrow's hardening costs per step (Sparrow
runs with its shipped settings: time limit, output check, repeat guard). The "bare seed" gets its replies
from a list (no model at all): the seed's loop alone, a floor. Each step asks a different sum (``i + 1``),
so no call repeats. "threaded" is Sparrow with the calculator in a worker thread (as user, web and plugin
tools run), against Sparrow with it inline.

Memory: the bytes per step must stay the same from short to long runs (the context is bounded; nothing
keeps a per-step copy of the history; only the record of each distinct call, which repeat detection needs).

    python bench/loop_overhead.py [--steps 10000] [--json]
"""

from __future__ import annotations

import argparse
import gc
import json
import platform
import queue
import threading
import time
import tracemalloc
from collections.abc import Callable

from seed_loops import FakeLLM, ListLLM, seed_react, seed_tools

from agent_core import Agent
from agent_core.models.chat import Completion
from agent_core.testing import Reply, ScriptedModel
from agent_core.testing.fake_models import as_reply
from agent_core.tools import Tool, calculator

THREADED_CALCULATOR = Tool(calculator.fn, name="calculator")
"""The same calculator without ``inline``: each call hops to a worker thread, as user and web tools do."""

TARGET_RATIO = 10.0
THREAD_TARGET = 1.25


def script(protocol: str, steps: int) -> list[str | Reply]:
    """``steps - 1`` tool steps (each a new sum) and a final answer."""
    if protocol == "react":
        step = 'Thought: add one more\nAction: calculator\nAction Input: {{"expression": "{i} + 1"}}'
        return [step.format(i=i) for i in range(steps - 1)] + [f"Thought: done\nFinal Answer: {steps - 1}"]
    calls = [Reply("add one more", tool_calls=(("calculator", {"expression": f"{i} + 1"}),)) for i in range(steps - 1)]
    return [*calls, str(steps - 1)]


def sparrow_run(protocol: str, steps: int, tool: Tool = calculator) -> Callable[[], object]:
    """A run of ``steps`` steps by Sparrow's loop (its events consumed and dropped), ready to start."""
    model = ScriptedModel(script(protocol, steps), keep_requests=1)
    agent = Agent(model, [tool], protocol=protocol, max_steps=steps)  # every other setting as shipped

    def run() -> object:
        last = None
        for last in agent.run("count"):  # noqa: B007 - only the last event is inspected
            pass
        assert last is not None and last.status == "completed", last  # type: ignore[attr-defined]
        return last

    return run


def seed_run(protocol: str, steps: int, *, bare: bool = False) -> Callable[[], object]:
    """The same run by the seed's bare loop for ``protocol`` (``bare``: its replies from a list, no model)."""
    if bare:
        llm: FakeLLM | ListLLM = ListLLM(
            [Completion(r.text, tool_calls=r.calls()) for r in map(as_reply, script(protocol, steps))]
        )
    else:
        llm = FakeLLM(ScriptedModel(script(protocol, steps), keep_requests=1))
    tools = {"calculator": calculator.fn}
    if protocol == "react":
        return lambda: _checked(seed_react(llm, tools, "count", steps), steps)
    return lambda: _checked(seed_tools(llm, tools, [calculator.schema], "count", steps), steps)


def _checked(answer: str, steps: int) -> str:
    assert answer == str(steps - 1), answer
    return answer


def timed(run: Callable[[], object]) -> tuple[float, float]:
    """Wall and CPU seconds ``run`` takes (garbage collected first, so one side does not pay for the other's)."""
    gc.collect()
    wall, cpu = time.perf_counter(), time.process_time()
    run()
    return time.perf_counter() - wall, time.process_time() - cpu


def per_step(make: Callable[[], Callable[[], object]], steps: int, repeats: int) -> tuple[float, float]:
    """Best wall and best CPU µs/step over ``repeats`` fresh runs (the least disturbed by other work)."""
    times = [timed(make()) for _ in range(repeats)]
    return min(w for w, _ in times) / steps * 1e6, min(c for _, c in times) / steps * 1e6


def thread_hop(calls: int, repeats: int) -> tuple[float, float]:
    """Best wall and CPU µs of one bare round trip to a waiting Python thread: the machine's floor for any tool
    run off the loop's thread (two queues, no Sparrow code)."""
    jobs: queue.SimpleQueue[int | None] = queue.SimpleQueue()
    done: queue.SimpleQueue[int] = queue.SimpleQueue()

    def worker() -> None:
        while (job := jobs.get()) is not None:
            done.put(job)

    threading.Thread(target=worker, daemon=True).start()

    def hops() -> object:
        for i in range(calls):
            jobs.put(i)
            done.get()
        return None

    best = per_step(lambda: hops, calls, repeats)
    jobs.put(None)
    return best


def peak_memory(protocol: str, steps: int) -> int:
    """Peak bytes allocated while running ``steps`` steps (the script itself excluded)."""
    run = sparrow_run(protocol, steps)
    gc.collect()
    tracemalloc.start()
    baseline = tracemalloc.get_traced_memory()[0]
    run()
    peak = tracemalloc.get_traced_memory()[1] - baseline
    tracemalloc.stop()
    return peak


def measure(steps: int, repeats: int) -> dict[str, dict[str, dict[str, float]]]:
    """µs/step of Sparrow, the seed and Sparrow with a threaded tool, per clock and protocol, in one run."""
    results: dict[str, dict[str, dict[str, float]]] = {"cpu": {}, "wall": {}}
    for protocol in ("react", "tools"):
        sparrow_run(protocol, 200)()  # warm up imports and caches
        seed_run(protocol, 200)()
        sparrow = per_step(lambda p=protocol: sparrow_run(p, steps), steps, repeats)
        seed = per_step(lambda p=protocol: seed_run(p, steps), steps, repeats)
        bare = per_step(lambda p=protocol: seed_run(p, steps, bare=True), steps, repeats)
        threaded = per_step(lambda p=protocol: sparrow_run(p, steps, THREADED_CALCULATOR), steps, repeats)
        for i, clock in enumerate(("wall", "cpu")):
            row = {"sparrow": sparrow[i], "seed": seed[i], "threaded": threaded[i], "bare_seed": bare[i]}
            row["ratio"] = row["sparrow"] / row["seed"]
            row["bare_ratio"] = row["sparrow"] / row["bare_seed"]
            row["threaded_ratio"] = row["threaded"] / row["sparrow"]
            results[clock][protocol] = {k: round(v, 2) for k, v in row.items()}
    return results


def main() -> None:
    """Print µs/step of Sparrow and the seed per protocol, their ratios, and the memory of longer runs."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=3, help="runs of each loop; the best is kept")
    parser.add_argument("--json", action="store_true", help="also print the figures as one JSON line")
    args = parser.parse_args()
    machine = f"Python {platform.python_version()} on {platform.machine()}"
    print(f"{machine} · {args.steps:,} steps per run, best of {args.repeats} · timed side by side in one process")
    print(f"targets: Sparrow ≤ {TARGET_RATIO:g}× the seed's loop; a tool in a worker thread ≤ +{THREAD_TARGET - 1:.0%}")
    print(
        f"{'clock':<6}{'protocol':<10}{'Sparrow µs':>11}{'seed µs':>9}{'ratio':>8}"
        f"{'threaded µs':>13}{'threaded':>10}{'bare seed µs':>14}{'ratio':>8}"
    )
    results = measure(args.steps, args.repeats)
    for clock, rows in results.items():
        for protocol, row in rows.items():
            print(
                f"{clock:<6}{protocol:<10}{row['sparrow']:>11.1f}{row['seed']:>9.1f}{row['ratio']:>7.1f}×"
                f"{row['threaded']:>13.1f}{row['threaded_ratio']:>9.2f}×"
                f"{row['bare_seed']:>14.1f}{row['bare_ratio']:>7.1f}×"
            )
    print("seed: the seed's loop reading the same scripted model; bare seed: its loop with replies from a list")
    print("threaded: Sparrow with the calculator in a worker thread, against Sparrow with it inline")
    print("cpu: the process's CPU time (every thread), steadier on a shared machine; wall: elapsed time")
    hop_wall, hop_cpu = thread_hop(args.steps, args.repeats)
    floors = ", ".join(
        f"{p} {(results['cpu'][p]['sparrow'] + hop_cpu) / results['cpu'][p]['sparrow']:.2f}×" for p in results["cpu"]
    )
    print(f"floor: a bare round trip to a waiting thread costs {hop_wall:.1f} µs wall, {hop_cpu:.1f} µs CPU here;")
    print(f"       no worker thread can do better than Sparrow + that hop (cpu: {floors})")
    print()
    print("memory: the context is bounded; what grows is the run's record of distinct calls (repeat detection)")
    print(f"{'protocol':<10}{'peak KiB @100':>15}{'@1,000':>9}{'@5,000':>9}{'B/step 100→1,000':>18}{'1,000→5,000':>13}")
    for protocol in ("react", "tools"):
        peaks = [peak_memory(protocol, n) for n in (100, 1000, 5000)]
        slopes = f"{(peaks[1] - peaks[0]) / 900:>18.0f}{(peaks[2] - peaks[1]) / 4000:>13.0f}"
        print(f"{protocol:<10}{peaks[0] / 1024:>15.0f}{peaks[1] / 1024:>9.0f}{peaks[2] / 1024:>9.0f}{slopes}")
    if args.json:
        print(json.dumps(results))


if __name__ == "__main__":
    main()
