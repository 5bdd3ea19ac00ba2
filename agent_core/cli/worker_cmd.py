"""``python -m agent_core worker``: run experiment units handed out through the job queue on PostgreSQL.

Start any number of them, on any machines that reach the database (and the model endpoints): each takes units
until stopped (``--once``: until the queue is empty). ``eval run --queue`` hands an experiment's units to them.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable

from agent_core.cli.common import EXIT_CANCELLED, EXIT_OK, CliError, subcommand
from agent_core.experiments.datasets import get_dataset
from agent_core.experiments.records import ExperimentInfo, get_experiment
from agent_core.experiments.runner import Progress, QueueError, run_worker
from agent_core.store import SessionStore
from agent_core.store.database import database_url


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``worker`` command."""
    worker = subcommand(subparsers, "worker", "run experiment units from the job queue (PostgreSQL)", cmd_worker)
    worker.add_argument("--concurrency", type=int, default=4, help="units run at once by this worker (default 4)")
    worker.add_argument("--once", action="store_true", help="exit when the queue is empty instead of waiting")


def cmd_worker(args: argparse.Namespace) -> int:
    """Run units until stopped (Ctrl-C ends the worker after its running units)."""
    try:
        run_worker(database_url(args.db), concurrency=max(1, args.concurrency), wait=not args.once)
    except QueueError as exc:
        raise CliError(str(exc)) from None
    return EXIT_OK


def wait_for_workers(
    store: SessionStore, info: ExperimentInfo, show: Callable[[Progress], None], *, poll_s: float = 1.0
) -> int:
    """Show the progress of an experiment run by workers until every unit has a final result."""
    items = get_dataset(store, info.dataset_id).item_count
    try:
        while True:
            progress = Progress.start(info, items, store)
            show(progress)
            if progress.done >= progress.total or get_experiment(store, info.id).status == "cancelled":
                return EXIT_OK
            time.sleep(poll_s)
    except KeyboardInterrupt:
        print(f"\nstopped waiting; the workers go on (`eval show {info.id}`)", file=sys.stderr)
        return EXIT_CANCELLED
