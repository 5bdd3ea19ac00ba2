"""Running an experiment: every (item, configuration, repeat) an ordinary recorded run in a session of its own, scored
as it ends, with the progress shared by the CLI and the page (done/total, pass rate, cost so far, time left). Units
run on a bounded pool of threads, here (``ExperimentRunner``), in a background thread of this process (the app's Run
button), or as jobs of a Procrastinate queue on the store's PostgreSQL taken by workers on any number of machines,
each running its unit with the same runner (so results are the same) and reading API keys from its own environment.
A unit that already has a final result is skipped, so running an experiment again (or deferring its units again:
``eval resume``) after a crash or a Stop resumes it. A run that ends rate-limited (HTTP 429, after the client's own
retries) is not a failure: the pace slows down (every unit waits out a growing backoff) and the unit runs again.
Stop (``cancel``) lets running items end as ``cancelled`` and starts no new one. Why Procrastinate (and not
PgQueuer): both keep jobs in PostgreSQL tables and take them with ``FOR UPDATE SKIP LOCKED`` and ``LISTEN/NOTIFY``,
so neither needs a new server; Procrastinate also has a synchronous API (defer from plain code, sync task functions
run in threads), queueing locks (deferring a unit twice keeps one job waiting), retries, stalled-worker detection
and a CLI to inspect jobs, while PgQueuer is asyncio-only on the consumer side. Procrastinate (the ``postgres``
extra) is imported when a queue is first used.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import logging
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from sqlalchemy import Engine, func, inspect, make_url, text
from sqlmodel import Session, col, select

from agent_core.engine.conversation import Turn
from agent_core.env_settings import env_settings
from agent_core.events import Event, RunFinished
from agent_core.experiments.configs import ModelFactory, RunConfig, agent_for, openai_model, tools_for
from agent_core.experiments.datasets import DatasetItem, dataset_items
from agent_core.experiments.records import (
    FINAL_STATES,
    ExperimentInfo,
    finish_unit,
    finished_units,
    get_experiment,
    outcome,
    record_judge,
    set_status,
    unit_started,
)
from agent_core.experiments.scoring import RunFacts, Score, ScoringContext, failure_of, recorded_judge, score_check
from agent_core.experiments.tables import ResultRow
from agent_core.formatting import format_cost, format_duration
from agent_core.guards.limits import CancelToken
from agent_core.models.chat import ChatModel
from agent_core.models.pricing import PriceTable, env_prices_or_catalogue
from agent_core.runtime.sessions import run_in_new_session
from agent_core.store import Actor, SessionStore
from agent_core.store.access import LOCAL_ADMIN
from agent_core.store.database import writer
from agent_core.store.runs import this_process
from agent_core.tools import Tool
from agent_core.views.metrics import run_metrics

log = logging.getLogger(__name__)
MAX_RATE_LIMITED = 6
"""Attempts of one unit that end rate-limited before it counts as an error."""
Unit = tuple[int, int, int]
"""(item position, configuration index, repeat)."""


def rate_limited(finished: RunFinished | None) -> bool:
    """True when a run ended because the endpoint kept answering 429."""
    error = (finished.error or "") if finished else ""
    return finished is not None and finished.status == "error" and ("(429)" in error or "rate-limit" in error)


@dataclass
class Pace:
    """A shared backoff: after a 429 every unit waits until ``resume_at``; the wait doubles up to ``max_s``."""

    base_s: float = 1.0
    max_s: float = 30.0
    delay_s: float = 0.0
    resume_at: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def slow_down(self) -> float:
        """Note a 429: the next units wait longer; returns the new delay."""
        with self.lock:
            self.delay_s = min(self.max_s, max(self.base_s, self.delay_s * 2))
            self.resume_at = time.monotonic() + self.delay_s
            return self.delay_s

    def wait(self, cancel: CancelToken) -> None:
        """Sleep until the backoff is over (or the experiment is stopped)."""
        while not cancel.cancelled and (left := self.resume_at - time.monotonic()) > 0:
            time.sleep(min(left, 0.2))

    def ok(self) -> None:
        """A run went through: the next 429 starts from the base delay again."""
        with self.lock:
            self.delay_s = self.delay_s / 2 if self.delay_s > self.base_s else 0.0


@dataclass
class ExperimentRunner:
    """Runs an experiment's missing units and scores them; ``run()`` returns the final Progress.

    ``model_factory`` is asked once per configuration: its model serves every unit of that configuration,
    concurrently (``OpenAIChatModel`` and the fakes are safe to share; keep per-run state out of a custom one)."""

    store: SessionStore
    experiment_id: str
    model_factory: ModelFactory = openai_model
    judge_model: ChatModel | None = None
    on_progress: Callable[[Progress], None] | None = None
    cancel: CancelToken = field(default_factory=CancelToken)
    prices: PriceTable = field(default_factory=env_prices_or_catalogue)
    pace: Pace = field(default_factory=Pace)
    worker: str = field(default_factory=this_process)
    _tools: dict[tuple[str, ...] | None, list[Tool] | ValueError] = field(default_factory=dict, init=False, repr=False)
    _tools_lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)
    _models: dict[RunConfig, ChatModel] = field(default_factory=dict, init=False, repr=False)
    _models_lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def model(self, config: RunConfig) -> ChatModel:
        """``config``'s model, made once per runner and shared by its units (a client costs ~30 ms of CPU to make:
        TLS context, connection pool); a factory that raises is asked again by the next unit.

        Made under a lock: units starting together would otherwise each make one (seen in CI, two for one config)."""
        with self._models_lock:
            found = self._models.get(config)
            if found is None:
                found = self._models[config] = self.model_factory(config)
        return found

    def tools(self, config: RunConfig) -> list[Tool]:
        """The tools ``config`` enables, built once per run of the runner (building scans the plugin entry points:
        tens of milliseconds of CPU, more than the store's share of a unit); ValueError for an unknown one."""
        with self._tools_lock:
            if config.tools not in self._tools:
                try:
                    self._tools[config.tools] = tools_for(config)
                except ValueError as exc:
                    self._tools[config.tools] = exc
            found = self._tools[config.tools]
        if isinstance(found, ValueError):
            raise found
        return found

    def run(self, units: Iterable[Unit] | None = None) -> Progress:
        """Run every unit without a final result (or just ``units``), ``concurrency`` at a time."""
        info = get_experiment(self.store, self.experiment_id)
        items = dataset_items(self.store, info.dataset_id)
        todo = [u for u in (units if units is not None else all_units(info, len(items)))]
        done = finished_units(self.store, info.id)
        if any(check.judge is not None for item in items for check in item.checks):
            self._use_judge(info)
        self.progress = Progress.start(info, len(items), self.store)
        set_status(self.store, info.id, "running")
        with ThreadPoolExecutor(max_workers=info.concurrency, thread_name_prefix="experiment") as pool:
            for future in [pool.submit(self._unit, info, items, u) for u in todo if u not in done]:
                future.result()
        status = "cancelled" if self.cancel.cancelled else "finished"
        if status == "finished" and len(finished_units(self.store, info.id)) < self.progress.total:
            status = "pending"  # a subset ran (a worker's share): the experiment is not over
        set_status(self.store, info.id, status)
        self._report()
        return self.progress

    def _use_judge(self, info: ExperimentInfo) -> None:
        """The judge: the one given, else the experiment's recorded one, else $SPARROW_JUDGE_MODEL (then recorded)."""
        config = info.judge
        if config is None:
            name = env_settings().sparrow_judge_model if self.judge_model is None else self.judge_model.name
            config = RunConfig(name="judge", model=name) if name else None
            if config is not None:
                record_judge(self.store, info.id, config)
        if self.judge_model is None and config is not None:
            self.judge_model = self.model_factory(config)

    def _unit(self, info: ExperimentInfo, items: list[DatasetItem], unit: Unit) -> None:
        position, config_index, repeat = unit
        key = (info.id, position, config_index, repeat)
        try:
            run_unit(self, info, items[position], info.configs[config_index], key)
        except Exception as exc:  # one unit's failure must not end the experiment
            log.exception("unit %s of experiment %s failed", unit, info.id)
            score = Score.of("run", False, f"the item could not be run: {type(exc).__name__}: {exc}")
            finish_unit(self.store, key, outcome(None, "error", [score], "error", None), checked=True)
            self.progress.add(False, None, error=True)
        self._report()

    def _report(self) -> None:
        if self.on_progress is not None:
            self.on_progress(self.progress.snapshot())


def all_units(info: ExperimentInfo, item_count: int) -> list[Unit]:
    """Every (item, configuration, repeat) of an experiment, item by item."""
    return [(p, c, r) for p in range(item_count) for c in range(len(info.configs)) for r in range(info.repeats)]


def run_unit(
    runner: ExperimentRunner, info: ExperimentInfo, item: DatasetItem, config: RunConfig, key: tuple[str, int, int, int]
) -> None:
    """Run one unit to a final result (backing off and trying again while it ends rate-limited)."""
    for _attempt in range(MAX_RATE_LIMITED):
        runner.pace.wait(runner.cancel)
        if runner.cancel.cancelled:
            return
        session_id, events = run_item(runner, info, key, item, config)
        finished = next((e for e in reversed(events) if isinstance(e, RunFinished)), None)
        if not rate_limited(finished):
            runner.pace.ok()
            score_unit(runner, key, session_id, item, config, events, finished)
            return
        log.warning("item %s hit the rate limit; backing off %.1f s", item.id, runner.pace.slow_down())
    score = Score.of("run", False, f"the endpoint kept rate-limiting this item ({MAX_RATE_LIMITED} attempts)")
    finish_unit(runner.store, key, outcome(None, "error", [score], "rate_limited", None), checked=True)
    runner.progress.add(False, None, error=True)


def run_item(
    runner: ExperimentRunner, info: ExperimentInfo, key: tuple[str, int, int, int], item: DatasetItem, config: RunConfig
) -> tuple[str, list[Event]]:
    """The item's question asked with ``config`` (earlier turns in memory) in a session of its own; (its id, events).

    One transaction makes the session with its configuration, claims its run and records the unit as running; the
    events are written grouped (``record_events``): an interrupted item runs again from the start, in a new session.
    The run gets a token of its own, cancelled with the experiment's: whatever cancels one run (its claim lost
    to another process, say) must not stop the whole experiment.
    """
    agent = agent_for(config, runner.model(config), list(runner.tools(config)))
    agent.memory.turns = [Turn(t.question, t.answer) for t in item.turns]
    title = f"{info.name} · {item.id} · {config.label}" + (f" · #{key[3] + 1}" if info.repeats > 1 else "")
    own = CancelToken()
    unlink = runner.cancel.on_cancel(own.cancel)
    try:
        session_id, events = run_in_new_session(
            runner.store, agent, item.question, title=title, cancel=own, also=unit_started(key, runner.worker)
        )
        return session_id, list(events)
    finally:
        unlink()


def score_unit(
    runner: ExperimentRunner,
    key: tuple[str, int, int, int],
    session_id: str,
    item: DatasetItem,
    config: RunConfig,
    events: list[Event],
    finished: RunFinished | None,
) -> None:
    """Score a finished run with the item's checks and write its result (a cancelled run is left to resume)."""
    cost = run_metrics(events, finished.run_id, prices=runner.prices).cost if finished else None  # as Traces has it
    facts = RunFacts.of(events, cost)
    run_id = finished.run_id if finished else None
    if facts.status == "cancelled":
        finish_unit(runner.store, key, outcome(run_id, "cancelled", [], "cancelled", cost), checked=True)
        return
    judge = recorded_judge(runner.store, session_id, runner.judge_model) if runner.judge_model else None
    ctx = ScoringContext(item, facts, tuple(events), judge, config.model_dump(mode="json"))
    scores = [score_check(check, ctx) for check in item.checks]
    values = outcome(run_id, "done", scores, None, cost)
    values["failure"] = failure_of(facts, bool(values["passed"]))
    finish_unit(runner.store, key, values, checked=True)
    runner.progress.add(bool(values["passed"]), cost)


@dataclass
class Progress:
    """How far an experiment is; ``add`` is safe from several threads."""

    total: int
    done: int = 0
    passed: int = 0
    errors: int = 0
    cost: float = 0.0
    unpriced: int = 0
    """Finished units whose model has no price (their cost is unknown)."""
    resumed: int = 0
    """Units already finished before this run started (a resumed experiment)."""
    started: float = field(default_factory=time.monotonic)
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    @classmethod
    def start(cls, info: ExperimentInfo, item_count: int, store: SessionStore) -> Progress:
        """The progress of ``info`` now, counting the results it already has."""
        query = select(func.count(), func.sum(func.coalesce(ResultRow.cost, 0.0))).where(
            ResultRow.experiment_id == info.id, col(ResultRow.state).in_(FINAL_STATES)
        )
        passed_query = select(func.count()).where(ResultRow.experiment_id == info.id, col(ResultRow.passed))  # pyright: ignore[reportArgumentType]  # a nullable bool column filters by its truth
        with Session(store.engine) as db:
            count, cost = db.exec(query).one()
            passed = db.exec(passed_query).one()
        total = item_count * len(info.configs) * info.repeats
        return cls(total=total, done=count or 0, passed=passed or 0, cost=float(cost or 0.0), resumed=count or 0)

    def add(self, passed: bool, cost: float | None, *, error: bool = False) -> None:
        """Count one finished unit."""
        with self.lock:
            self.done += 1
            self.passed += int(passed)
            self.errors += int(error)
            if cost is None:
                self.unpriced += 1
            else:
                self.cost += cost

    def snapshot(self) -> Progress:
        """A copy that no longer changes."""
        with self.lock:
            return dataclasses.replace(self, lock=threading.Lock())

    @property
    def pass_rate(self) -> float | None:
        """Passed ÷ done so far (None before the first)."""
        return self.passed / self.done if self.done else None

    @property
    def elapsed_s(self) -> float:
        """Seconds since this run started."""
        return time.monotonic() - self.started

    @property
    def eta_s(self) -> float | None:
        """Seconds left at the pace of this run so far (None before its first unit)."""
        new = self.done - self.resumed
        return None if new <= 0 else self.elapsed_s / new * (self.total - self.done)

    def line(self) -> str:
        """``12/40 · 75% pass · $0.0123 · 0:35 left``."""
        rate = "—" if self.pass_rate is None else f"{self.pass_rate:.0%}"
        cost = format_cost(self.cost) + (f" (+{self.unpriced} unpriced)" if self.unpriced else "")
        left = "—" if self.eta_s is None else format_duration(self.eta_s * 1000)
        return f"{self.done}/{self.total} · {rate} pass · {cost} · {left} left"

    def to_dict(self) -> dict[str, Any]:
        """The figures as plain values (for ``--json`` and the page)."""
        return {
            "done": self.done,
            "total": self.total,
            "passed": self.passed,
            "errors": self.errors,
            "pass_rate": self.pass_rate,
            "cost": self.cost,
            "eta_s": self.eta_s,
        }


@dataclass
class BackgroundRun:
    """One experiment running in a thread; ``progress`` is its latest figures, ``stop()`` cancels it cleanly."""

    experiment_id: str
    cancel: CancelToken = field(default_factory=CancelToken)
    progress: Progress | None = None
    error: str | None = None
    thread: threading.Thread | None = None

    @property
    def running(self) -> bool:
        """True until the thread ends."""
        return self.thread is not None and self.thread.is_alive()

    def stop(self) -> None:
        """Let the running items end as cancelled and start no new one (a later run resumes the rest)."""
        self.cancel.cancel()

    def wait(self, timeout: float | None = None) -> None:
        """Wait for the thread to end."""
        if self.thread is not None:
            self.thread.join(timeout)


def start_in_background(
    store: SessionStore, experiment_id: str, model_factory: ModelFactory = openai_model
) -> BackgroundRun:
    """Run (or resume) ``experiment_id`` in a daemon thread."""
    job = BackgroundRun(experiment_id)

    def report(progress: Progress) -> None:
        job.progress = progress

    def work() -> None:
        try:
            runner = ExperimentRunner(
                store, experiment_id, model_factory=model_factory, on_progress=report, cancel=job.cancel
            )
            job.progress = runner.run()
        except Exception as exc:  # shown on the page; the experiment stays resumable
            job.error = f"{type(exc).__name__}: {exc}"

    job.thread = threading.Thread(target=work, name=f"experiment-{experiment_id}", daemon=True)
    job.thread.start()
    return job


QUEUE = "sparrow-experiments"
TASK = "sparrow.experiment_unit"
QUEUE_NAME = "procrastinate"
"""What an experiment's ``queue`` column says when its units were handed to workers."""
_SCHEMA_LOCK = 0x5370_6172_5155_4555
"""Advisory lock held while the queue's tables are created (several workers may start at once)."""


class QueueError(RuntimeError):
    """The job queue cannot be used here (it needs PostgreSQL)."""


def conninfo(database_url: str) -> str:
    """The libpq connection string of a SQLAlchemy PostgreSQL URL; QueueError for another database."""
    url = make_url(database_url)
    if url.get_backend_name() != "postgresql":
        raise QueueError("workers need the store on PostgreSQL (DATABASE_URL=postgresql+psycopg://...)")
    return url.set(drivername="postgresql").render_as_string(hide_password=False)


def _procrastinate() -> ModuleType:
    """The Procrastinate package (the ``postgres`` extra), imported when a queue is first used."""
    try:
        return importlib.import_module("procrastinate")
    except ImportError:
        raise QueueError("workers need the postgres extra: pip install 'sparrow-agent[postgres]'") from None


def queue_app(database_url: str) -> Any:
    """The Procrastinate app on the store's database, with the unit task registered."""
    procrastinate = _procrastinate()
    app = procrastinate.App(connector=procrastinate.PsycopgConnector(conninfo=conninfo(database_url)))
    app.task(name=TASK, queue=QUEUE, retry=2, pass_context=False)(functools.partial(run_queued_unit, database_url))
    return app


def ensure_queue_schema(engine: Engine) -> None:
    """Create Procrastinate's tables in the store's database, once (under an advisory lock)."""
    if inspect(engine).has_table("procrastinate_jobs"):
        return
    procrastinate = _procrastinate()
    schema = procrastinate.App(connector=procrastinate.PsycopgConnector()).schema_manager.get_schema()
    with writer(engine).begin() as conn:
        conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _SCHEMA_LOCK})
        if not inspect(conn).has_table("procrastinate_jobs"):
            conn.exec_driver_sql(schema.replace("%", "%%"))  # the driver reads % as a placeholder


def enqueue_experiment(store: SessionStore, database_url: str, experiment_id: str) -> int:
    """Defer a job for every unit of the experiment without a final result; the number deferred."""
    info = get_experiment(store, experiment_id)
    ensure_queue_schema(store.engine)
    done = finished_units(store, info.id)
    todo = [u for u in all_units(info, len(dataset_items(store, info.dataset_id))) if u not in done]
    app = queue_app(database_url)
    deferred = 0
    with app.open():
        task = app.tasks[TASK]
        for position, config_index, repeat in todo:
            lock = f"{info.id}:{position}:{config_index}:{repeat}"
            try:
                task.configure(queueing_lock=lock).defer(
                    experiment_id=info.id, position=position, config_index=config_index, repeat=repeat, owner=info.owner
                )
                deferred += 1
            except _procrastinate().exceptions.AlreadyEnqueued:  # still waiting from an earlier defer
                pass
    set_status(store, info.id, "pending")
    return deferred


@functools.cache
def _store(database_url: str) -> SessionStore:
    return SessionStore.open(database_url)


def run_queued_unit(
    database_url: str, *, experiment_id: str, position: int, config_index: int, repeat: int, owner: str | None
) -> dict[str, Any]:
    """The task a worker runs: one unit, as its experiment's owner, with the local runner."""
    store = _store(database_url)
    store = store.acting_as(LOCAL_ADMIN if owner is None else Actor.user(owner))
    progress = ExperimentRunner(store, experiment_id).run(units=[(position, config_index, repeat)])
    return {"done": progress.done, "total": progress.total}


def run_worker(database_url: str, *, concurrency: int = 4, wait: bool = True) -> None:
    """Take and run units until stopped (``wait=False``: until the queue is empty)."""
    ensure_queue_schema(_store(database_url).engine)
    app = queue_app(database_url)
    log.info("worker on %s, concurrency %d", make_url(database_url).render_as_string(), concurrency)
    with app.open():
        app.run_worker(queues=[QUEUE], concurrency=concurrency, wait=wait, install_signal_handlers=True)
