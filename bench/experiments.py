"""Experiment speed: wall time against the ideal, the store's overhead per item, 100 concurrent runs, the page.

1. ``--items`` items × 2 configurations against the fake OpenAI server (HTTP) at ``--delay`` s per model call,
   ``--concurrency`` at a time: wall time ÷ ideal (model time ÷ concurrency; target ≤ 1.3), and the store's
   overhead per item: the same runs without recording them, compared (target ≤ 5%).
2. 100 runs at once in one process with a 1 s-per-step model: events lost (target 0) and p95 from an event
   to it being stored (target ≤ 50 ms).
3. The Experiments page with 1,000 items × 3 configurations (and a baseline): its queries and frames, and the
   whole page script under AppTest (target ≤ 1.5 s).

    python bench/experiments.py [--items 200] [--delay 0.2] [--concurrency 16] [--page-items 1000]
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import logging
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from sqlalchemy import event as sa_event
from sqlmodel import Session

from agent_core.engine.agent import Agent
from agent_core.events import Event, ModelDelta, ModelFinished, RunFinished, RunStarted, StepStarted, Usage
from agent_core.experiments import DatasetItem, ExperimentRunner, RunConfig, create_dataset, create_experiment
from agent_core.experiments.configs import agent_for, openai_model, tools_for
from agent_core.experiments.records import get_experiment, outcome, set_status
from agent_core.experiments.results import changes, config_summaries, unit_results
from agent_core.experiments.scoring import Score
from agent_core.experiments.tables import ResultRow
from agent_core.models.chat import Message, ModelRequest
from agent_core.runtime.sessions import run_in_session
from agent_core.store import SessionStore
from agent_core.store.database import writer
from agent_core.store.log import encode
from agent_core.store.tables import EventRow, SessionRow
from agent_core.testing import FakeOpenAIServer, FunctionModel
from agent_core.testing.rule_llm import rule_reply

ROOT = Path(__file__).resolve().parents[1]
CALLS_PER_ITEM = 2
"""Each item is "What is N + N?": a calculator call, then the answer."""


def slow_rules(delay: float) -> Any:
    """The rule-driven fake LLM, each reply after ``delay`` seconds (no typing delay)."""

    def respond(body: dict[str, Any]) -> Any:
        return dataclasses.replace(rule_reply(body), chunk_delay=0.0, delay=delay)

    return respond


def items(count: int) -> list[DatasetItem]:
    """``count`` two-step arithmetic items."""
    return [DatasetItem(id=f"add-{n}", question=f"What is {n} + {n}?", expect={"number": 2 * n}) for n in range(count)]


def serve(port: int, delay: float) -> None:
    """The slow fake LLM in a process of its own (a model server is never in the client's process)."""
    server = FakeOpenAIServer(slow_rules(delay), port=port).start()
    print(server.base_url, flush=True)
    threading.Event().wait()


@contextlib.contextmanager
def model_server(delay: float) -> Iterator[str]:
    """``serve`` in a subprocess; its base URL."""
    command = [sys.executable, __file__, "--serve", "0", "--delay", str(delay)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        yield str(process.stdout.readline().strip() if process.stdout else "")
    finally:
        process.terminate()
        process.wait(timeout=10)


def wall_against_ideal(args: argparse.Namespace, workdir: Path) -> None:
    """Part 1: an experiment through HTTP, and the same runs unrecorded."""
    with model_server(args.delay) as base_url:
        os.environ.update(OPENAI_BASE_URL=base_url, OPENAI_API_KEY="sk-bench")
        configs = [
            RunConfig(name="react", model="gpt-4o-mini"),
            RunConfig(name="tools", model="fake-model", protocol="tools"),
        ]
        store = SessionStore.open(f"sqlite:///{workdir / 'wall.db'}")
        create_dataset(store, "bench", items(args.items))
        experiment = create_experiment(store, "bench", configs, concurrency=args.concurrency)
        counts = transactions(store)
        started, cpu = time.perf_counter(), time.process_time()
        progress = ExperimentRunner(store, experiment.id).run()
        wall, cpu = time.perf_counter() - started, time.process_time() - cpu
        bare, bare_cpu = unrecorded(args, configs)
    units = args.items * len(configs)
    ideal = units * CALLS_PER_ITEM * args.delay / args.concurrency
    print(f"1. {units} units, {progress.passed} passed, concurrency {args.concurrency}, {args.delay} s per model call")
    print(f"   wall {wall:.2f} s, ideal {ideal:.2f} s: ratio {wall / ideal:.2f} (target ≤ 1.3)")
    print(f"   unrecorded {bare:.2f} s: store overhead per item {(wall - bare) / bare:+.1%} (target ≤ 5%)")
    print(
        f"   transactions per unit: {counts['write'] / units:.1f} write, {counts['read'] / units:.1f} read; CPU per "
        f"unit {cpu * 1000 / units:.1f} ms recorded, {bare_cpu * 1000 / units:.1f} ms unrecorded"
    )
    print(
        f"   CPU of this process {cpu / wall:.0%} of a core on average (one core at most: the GIL); at one whole core "
        f"the run would take ≥ {cpu:.1f} s, ratio ≥ {max(ideal, cpu) / ideal:.2f}"
    )
    print(f"   load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (load inflates all)")


def transactions(store: SessionStore) -> dict[str, int]:
    """Counts of the transactions begun on the store's engine from now on: ``write`` (they take the write lock,
    ``BEGIN IMMEDIATE``) and ``read``."""
    counts = {"write": 0, "read": 0}

    def begun(conn: Any) -> None:
        counts["write" if conn.get_execution_options().get("sparrow_write") else "read"] += 1

    sa_event.listen(store.engine, "begin", begun)
    return counts


def unrecorded(args: argparse.Namespace, configs: list[RunConfig]) -> tuple[float, float]:
    """The same units, the same agent and HTTP calls, without a store (tools and model made once per configuration,
    as the runner does); (wall, CPU) seconds."""
    tools = {config.name: tools_for(config) for config in configs}
    models = {config.name: openai_model(config) for config in configs}

    def one(unit: tuple[DatasetItem, RunConfig]) -> None:
        item, config = unit
        list(agent_for(config, models[config.name], list(tools[config.name])).run(item.question))

    units = [(i, c) for i in items(args.items) for c in configs]
    started, cpu = time.perf_counter(), time.process_time()
    with ThreadPoolExecutor(max_workers=args.concurrency) as pool:
        list(pool.map(one, units))
    return time.perf_counter() - started, time.process_time() - cpu


def one_second_steps(messages: list[Message], request: ModelRequest) -> str:
    """A model that takes 1 s per step: a calculator call, then the answer."""
    time.sleep(1.0)
    last = messages[-1]["content"]
    if last.startswith("Observation: "):
        return f"Thought: done.\nFinal Answer: {last.removeprefix('Observation: ')}"
    return 'Thought: multiply\nAction: calculator\nAction Input: {"expression": "6*7"}'


def hundred_runs(workdir: Path, count: int = 100, stagger: float = 0.0) -> None:
    """Part 2: ``count`` recorded runs at once (started over ``stagger`` s); lost events, event-to-stored latency."""
    store = SessionStore.open(f"sqlite:///{workdir / f'hundred{stagger:g}.db'}")
    counts = transactions(store)
    lags: list[float] = []
    seen: dict[str, int] = {}
    lock = threading.Lock()

    def run(n: int) -> None:
        time.sleep(stagger * n / count)
        session = store.sessions.create()
        agent = Agent(FunctionModel(one_second_steps, name="bench", stream_chunks=False))
        mine = []
        for event in run_in_session(store, session.id, agent, f"What is 6*7? ({n})"):
            if not isinstance(event, ModelDelta):  # a live view only: never stored (see store/recorder.py)
                mine.append(time.time() - event.ts)
        with lock:
            lags.extend(mine)
            seen[session.id] = len(mine)

    started = time.perf_counter()
    threads = [threading.Thread(target=run, args=(n,)) for n in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - started
    lost = sum(n - len(store.log.events(sid)) for sid, n in seen.items())
    p95 = statistics.quantiles(lags, n=20)[-1] * 1000
    started_over = f", started over {stagger:g} s" if stagger else ", all started at once"
    print(f"2. {count} concurrent runs, 1 s per step{started_over}: {sum(seen.values())} events in {wall:.1f} s")
    print(
        f"   lost events {lost} (target 0); event → stored p50 {statistics.median(lags) * 1000:.1f} ms, "
        f"p95 {p95:.1f} ms (target ≤ 50 ms); {counts['write']} write transactions"
    )


def synthetic_unit(experiment_id: str, key: tuple[int, int], passed: bool, n: int) -> list[Any]:
    """The rows of one scored unit: its session, the events a real one-step run ends with, its result."""
    session_id, run_id, now = f"ses_{experiment_id[-6:]}{n:010x}", f"run_{n:016x}", time.time()
    usage = Usage(300 + n % 50, 40)
    events: list[Event] = [
        RunStarted(run_id=run_id, question=f"item {key[0]}", model="bench", protocol="react"),
        StepStarted(run_id=run_id, step=1),
        ModelFinished(run_id=run_id, step=1, text="Final Answer: x", final_answer="x", usage=usage, latency_ms=200.0),
        RunFinished(
            run_id=run_id,
            status="completed" if passed else "max_steps",
            final_answer="x",
            steps=1 + n % 3,
            usage=usage,
            duration_ms=400.0 + n % 300,
        ),
    ]
    rows: list[Any] = [SessionRow(id=session_id, created_at=now, updated_at=now, last_seq=len(events))]
    rows += [
        EventRow(session_id=session_id, seq=i, run_id=run_id, type=e.type, ts=e.ts, payload=encode(e))
        for i, e in enumerate(events, start=1)
    ]
    score = Score.of("number", passed, "synthetic")
    values = outcome(run_id, "done", [score], None if passed else "wrong_answer", 0.0001)
    result = ResultRow(
        experiment_id=experiment_id,
        position=key[0],
        config_index=key[1],
        repeat=0,
        session_id=session_id,
        started_at=now,
        finished_at=now,
        **values,
    )
    return [*rows, result]


def page_store(workdir: Path, count: int) -> tuple[SessionStore, str]:
    """``count`` items × 3 configurations, scored, and a baseline of the same; (store, experiment id)."""
    store = SessionStore.open(f"sqlite:///{workdir / 'page.db'}")
    create_dataset(store, "page", items(count))
    configs = [RunConfig(name=f"c{i}", model="gpt-4o-mini") for i in range(3)]
    ids: list[str] = []
    for round_ in range(2):
        experiment = create_experiment(store, "page", configs, name=f"page {round_}", baseline=ids[0] if ids else None)
        with Session(writer(store.engine)) as db:
            for n in range(count * 3):
                rows = synthetic_unit(experiment.id, divmod(n, 3), (n + round_) % 4 != 0, n + round_ * count * 3)
                for part in (rows[:1], rows[1:-1], rows[-1:]):  # session, its events, its result (foreign keys)
                    db.add_all(part)
                    db.flush()
            db.commit()
        set_status(store, experiment.id, "finished")
        ids.append(experiment.id)
    return store, ids[1]


def page_open(workdir: Path, count: int) -> None:
    """Part 3: the page's data (queries, frames) and the whole page script, 1,000 items × 3 configurations."""
    from streamlit.testing.v1 import AppTest

    sys.path.insert(0, str(ROOT))  # sparrow_ui is the app's folder, not an installed package
    from sparrow_ui.panels.experiment_views import matrix_frame, summary_frame

    made = time.perf_counter()
    store, experiment_id = page_store(workdir, count)
    print(f"3. built {count} items × 3 configurations twice in {time.perf_counter() - made:.1f} s")
    started = time.perf_counter()
    info = get_experiment(store, experiment_id)
    units = unit_results(store, info.id)
    summaries = config_summaries(store, info, units)
    baseline = get_experiment(store, str(info.baseline_id))
    found = changes(baseline, unit_results(store, baseline.id), info, units)
    summary_frame(summaries)
    matrix_frame(info, units)
    data = time.perf_counter() - started
    print(f"   data: {len(units)} units, {len(found)} changes, queries and frames in {data * 1000:.0f} ms")
    os.environ["DATABASE_URL"] = f"sqlite:///{workdir / 'page.db'}"
    logging.getLogger("streamlit").setLevel(logging.ERROR)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    at.switch_page("pages/experiments.py")
    at.query_params["experiment"] = experiment_id
    timings = []
    for _ in range(3):
        started = time.perf_counter()
        at.run()
        timings.append(time.perf_counter() - started)
        assert not at.exception, at.exception
        assert [len(d.value) for d in at.dataframe] == [2, 3, len(found), count]  # list, summary, changes, matrix
    print(f"   page script (AppTest): first {timings[0]:.2f} s, then {min(timings[1:]):.2f} s (target ≤ 1.5 s)")


def main() -> None:
    """Run the three parts."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=200)
    parser.add_argument("--delay", type=float, default=0.2)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--page-items", type=int, default=1000)
    parser.add_argument("--parts", default="1,2,3")
    parser.add_argument("--serve", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve is not None:
        serve(args.serve, args.delay)
        return
    with tempfile.TemporaryDirectory() as folder:
        workdir = Path(folder)
        if "1" in args.parts:
            wall_against_ideal(args, workdir)
        if "2" in args.parts:
            hundred_runs(workdir, args.runs)
            hundred_runs(workdir, args.runs, stagger=1.0)
        if "3" in args.parts:
            page_open(workdir, args.page_items)


if __name__ == "__main__":
    main()
