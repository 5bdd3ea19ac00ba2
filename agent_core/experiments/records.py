"""Experiments in the store: made, listed, looked up and deleted (owned like sessions: every call acts for
``store.actor``; a user sees only their own experiments, an admin all of them), and their result rows written as
units start and finish.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, bindparam, delete, insert, update
from sqlmodel import Session, col, select

from agent_core.experiments.configs import RunConfig
from agent_core.experiments.datasets import get_dataset, owned, visible
from agent_core.experiments.scoring import Score
from agent_core.experiments.tables import ExperimentRow, ResultRow
from agent_core.store import SessionStore
from agent_core.store.access import new_id
from agent_core.store.database import writer
from agent_core.store.tables import table_of

FINAL_STATES = ("done", "error")
"""Result states a resumed experiment does not run again (``running`` and ``cancelled`` ones it does)."""


class ExperimentNotFound(LookupError):
    """No experiment of this id (or not the actor's: worded the same)."""


@dataclass(frozen=True)
class ExperimentInfo:
    """An experiment: its dataset, exact configurations, repeats and status."""

    id: str
    name: str
    dataset_id: str
    configs: tuple[RunConfig, ...]
    repeats: int
    concurrency: int
    baseline_id: str | None
    status: str
    owner: str | None
    created_at: float
    finished_at: float | None
    queue: str | None = None
    judge: RunConfig | None = None
    """The model that grades ``judge`` checks, recorded with the configurations (None: no judge)."""

    @classmethod
    def of(cls, row: ExperimentRow) -> ExperimentInfo:
        """The info of a stored row."""
        configs = tuple(RunConfig.model_validate(c) for c in row.configs)
        return cls(
            row.id,
            row.name,
            row.dataset_id,
            configs,
            row.repeats,
            row.concurrency,
            row.baseline_id,
            row.status,
            row.owner,
            row.created_at,
            row.finished_at,
            row.queue,
            RunConfig.model_validate(row.judge) if row.judge else None,
        )


def create_experiment(
    store: SessionStore,
    dataset: str,
    configs: Sequence[RunConfig],
    *,
    name: str | None = None,
    repeats: int = 1,
    concurrency: int = 4,
    baseline: str | None = None,
    queue: str | None = None,
    judge: RunConfig | None = None,
) -> ExperimentInfo:
    """A new experiment of the actor's on dataset ``dataset`` (id or name); nothing runs yet.

    ``judge``: the model that grades ``judge`` checks, recorded with the configurations."""
    store.actor.check_writable()
    info = get_dataset(store, dataset)
    if not configs:
        raise ValueError("an experiment needs at least one configuration")
    if baseline is not None:
        get_experiment(store, baseline)
    number = len(list_experiments(store, dataset_id=info.id)) + 1
    row = ExperimentRow(
        id=new_id("exp"),
        name=(name or f"{info.name} v{info.version} #{number}")[:200],
        dataset_id=info.id,
        configs=[c.model_dump(mode="json") for c in configs],
        repeats=max(1, repeats),
        concurrency=max(1, concurrency),
        baseline_id=baseline,
        owner=store.actor.owner,
        created_at=time.time(),
        queue=queue,
        judge=judge.model_dump(mode="json") if judge else None,
    )
    with Session(writer(store.engine), expire_on_commit=False) as db:
        db.add(row)
        db.commit()
        return ExperimentInfo.of(row)


def get_experiment(store: SessionStore, experiment_id: str) -> ExperimentInfo:
    """One experiment; raises ExperimentNotFound."""
    with Session(store.engine) as db:
        row = db.get(ExperimentRow, experiment_id)
        if row is None or not visible(store.actor, row.owner):
            raise ExperimentNotFound(f"no experiment {experiment_id!r}")
        return ExperimentInfo.of(row)


def writable(store: SessionStore, experiment_id: str) -> ExperimentInfo:
    """The experiment if the actor may change it; ExperimentNotFound (not theirs), ReadOnly (a share viewer)."""
    store.actor.check_writable()
    return get_experiment(store, experiment_id)


def list_experiments(store: SessionStore, *, dataset_id: str | None = None) -> list[ExperimentInfo]:
    """The actor's experiments, newest first (``dataset_id``: only those on that dataset version)."""
    if store.actor.read_only:
        return []
    query = owned(
        select(ExperimentRow).order_by(col(ExperimentRow.created_at).desc()), ExperimentRow.owner, store.actor
    )
    if dataset_id is not None:
        query = query.where(ExperimentRow.dataset_id == dataset_id)
    with Session(store.engine) as db:
        return [ExperimentInfo.of(row) for row in db.exec(query)]


def set_status(store: SessionStore, experiment_id: str, status: str) -> None:
    """Record the experiment's status (``finished``, ``cancelled``... also stamps the end time)."""
    ended = time.time() if status in ("finished", "cancelled", "error") else None
    writable(store, experiment_id)
    with Session(writer(store.engine)) as db:
        db.exec(
            update(ExperimentRow).where(col(ExperimentRow.id) == experiment_id).values(status=status, finished_at=ended)
        )
        db.commit()


def record_judge(store: SessionStore, experiment_id: str, judge: RunConfig) -> None:
    """Record the judge an experiment's checks are graded by (when it was given at run time, not at creation)."""
    writable(store, experiment_id)
    with Session(writer(store.engine)) as db:
        values = {"judge": judge.model_dump(mode="json")}
        db.exec(update(ExperimentRow).where(col(ExperimentRow.id) == experiment_id).values(**values))
        db.commit()


def delete_experiment(store: SessionStore, experiment_id: str) -> None:
    """Delete an experiment and its scores (the sessions its items ran in stay, as ordinary sessions)."""
    get_experiment(store, experiment_id)
    store.actor.check_writable()
    with Session(writer(store.engine)) as db:
        db.exec(delete(ExperimentRow).where(col(ExperimentRow.id) == experiment_id))
        db.commit()


def experiment_session_ids(store: SessionStore) -> set[str]:
    """The sessions the actor's experiments ran their items in (the Sessions page hides them unless asked)."""
    if store.actor.read_only:
        return set()
    query = select(ResultRow.session_id).where(col(ResultRow.session_id).is_not(None)).distinct()
    query = owned(
        query.join(ExperimentRow, col(ExperimentRow.id) == ResultRow.experiment_id), ExperimentRow.owner, store.actor
    )
    with Session(store.engine) as db:
        return {str(session_id) for session_id in db.exec(query)}


def finished_units(store: SessionStore, experiment_id: str) -> set[tuple[int, int, int]]:
    """(position, config, repeat) of the results already final: a resumed experiment skips them."""
    get_experiment(store, experiment_id)
    query = select(ResultRow.position, ResultRow.config_index, ResultRow.repeat).where(
        ResultRow.experiment_id == experiment_id, col(ResultRow.state).in_(FINAL_STATES)
    )
    with Session(store.engine) as db:
        return {(p, c, r) for p, c, r in db.exec(query)}


def unit_started(key: tuple[str, int, int, int], worker: str) -> Callable[[Connection, str], None]:
    """Writes, in the caller's transaction, that a unit runs now in a session (replacing a stale row of an earlier
    attempt): ``SessionStore.runs.open`` makes the unit's session, claims its run and writes this, all at once."""

    def write(conn: Connection, session_id: str) -> None:
        conn.execute(_DELETE_UNIT, _unit_key(key))
        conn.execute(_INSERT_UNIT, _new_unit(key, session_id=session_id, worker=worker))

    return write


def start_unit(store: SessionStore, key: tuple[str, int, int, int], session_id: str, worker: str) -> None:
    """Record that a unit runs now in ``session_id`` (replacing a stale row from an earlier attempt)."""
    writable(store, key[0])
    with writer(store.engine).begin() as conn:
        unit_started(key, worker)(conn, session_id)


def finish_unit(
    store: SessionStore, key: tuple[str, int, int, int], values: dict[str, Any], *, checked: bool = False
) -> None:
    """Write a unit's outcome (state, run, scores, failure, cost); ``checked``: the caller (the runner, as it
    started) already found the experiment the actor's to change, so it is not looked up again."""
    if checked:
        store.actor.check_writable()
    else:
        writable(store, key[0])
    with writer(store.engine).begin() as conn:
        done = {**_unit_key(key), "finished_at": time.time(), **values}
        if conn.execute(_FINISH_UNIT, done).rowcount == 0:  # it failed before it could start (a bad configuration)
            conn.execute(_INSERT_UNIT, _new_unit(key, session_id=None, worker=None))
            conn.execute(_FINISH_UNIT, done)


def outcome(
    run_id: str | None, state: str, scores: Sequence[Score], failure: str | None, cost: float | None
) -> dict[str, Any]:
    """The values ``finish_unit`` writes for a scored (or failed) unit."""
    values = [s.value for s in scores]
    return {
        "run_id": run_id,
        "state": state,
        "passed": bool(scores) and all(s.passed for s in scores) if state == "done" else False,
        "score": sum(values) / len(values) if values else 0.0,
        "scores": [s.model_dump() for s in scores],
        "failure": failure,
        "cost": cost,
    }


_RESULTS = table_of(ResultRow)
_THE_UNIT = (
    (_RESULTS.c.experiment_id == bindparam("k_experiment"))
    & (_RESULTS.c.position == bindparam("k_position"))
    & (_RESULTS.c.config_index == bindparam("k_config"))
    & (_RESULTS.c.repeat == bindparam("k_repeat"))
)
# Prebuilt statements, their values bound at execution: built per unit, their clauses cost more than the writes.
_DELETE_UNIT, _INSERT_UNIT, _FINISH_UNIT = delete(_RESULTS).where(_THE_UNIT), insert(_RESULTS), update(_RESULTS)
_FINISH_UNIT = _FINISH_UNIT.where(_THE_UNIT)


def _unit_key(key: tuple[str, int, int, int]) -> dict[str, Any]:
    experiment_id, position, config_index, repeat = key
    return {"k_experiment": experiment_id, "k_position": position, "k_config": config_index, "k_repeat": repeat}


def _new_unit(key: tuple[str, int, int, int], *, session_id: str | None, worker: str | None) -> dict[str, Any]:
    """The column values of a unit's row as it starts (all given: a Core insert sets no model defaults)."""
    experiment_id, position, config_index, repeat = key
    return {
        **{"experiment_id": experiment_id, "position": position, "config_index": config_index, "repeat": repeat},
        **{"session_id": session_id, "run_id": None, "state": "running", "passed": None, "score": None},
        **{"scores": [], "failure": None, "cost": None, "worker": worker, "started_at": time.time()},
        "finished_at": None,
    }
