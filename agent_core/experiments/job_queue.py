"""Workers on any number of machines: an experiment's units as jobs of a Procrastinate queue on the store's PostgreSQL.

Why Procrastinate (and not PgQueuer): both keep jobs in PostgreSQL tables and take them with ``FOR UPDATE SKIP
LOCKED`` and ``LISTEN/NOTIFY``, so neither needs a new server. Procrastinate also has a synchronous API (defer from
plain code, sync task functions run in threads), queueing locks (deferring a unit twice keeps one job waiting),
retries, stalled-worker detection and a CLI to inspect jobs, and it has been maintained since 2019. PgQueuer is
asyncio-only on the consumer side and leaner; Sparrow's runner is synchronous, so Procrastinate fits with less code.

A job is one (experiment, item, configuration, repeat). The worker runs it with the same runner as a local run,
so results are the same, and a unit with a final result is skipped: deferring an experiment's units again (``eval
resume``) after a crash hands out only what is missing. Workers read API keys from their own environment.
"""

from __future__ import annotations

import functools
import importlib
import logging
from types import ModuleType
from typing import Any

from sqlalchemy import Engine, inspect, make_url, text

from agent_core.experiments.datasets import dataset_items
from agent_core.experiments.experiment_records import finished_units, get_experiment, set_status
from agent_core.experiments.experiment_runner import ExperimentRunner, all_units
from agent_core.store import Actor, SessionStore
from agent_core.store.access import LOCAL_ADMIN
from agent_core.store.database import writer

log = logging.getLogger(__name__)
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
