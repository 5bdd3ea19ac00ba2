# SQLModel types a field as its value; in the SQL expressions below the fields are columns:
# pyright: reportArgumentType=false, reportCallIssue=false
"""An experiment's results, read with SQL: one row per unit (its scores joined with its run's ``run_finished``), per
configuration the pass rate with its 95% Wilson interval (and pass@k and consistency with repeats), mean score,
cost, latency, tokens and failures, and the changes against a baseline (regressions: passed before, fails now;
fixes: the other way). Steps, tokens and latency come from the ``run_finished`` event of each unit's run, extracted
by the database (``json_extract`` on SQLite, ``jsonb`` paths on PostgreSQL): nothing walks the event log in Python.
Against a baseline, items are matched by their id, configurations by label, else by position, else the baseline's
first; an item passes under a configuration when most of its repeats pass.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from sqlalchemy import Float, and_, case, cast, func
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.sql.elements import ColumnElement
from sqlmodel import Session, col, select

from agent_core.experiments.records import ExperimentInfo, get_experiment
from agent_core.experiments.tables import DatasetItemRow, ResultRow
from agent_core.store import SessionStore
from agent_core.store.tables import EventRow

Z95 = 1.959964
"""The normal quantile of a two-sided 95% interval."""


@dataclass(frozen=True)
class UnitResult:
    """One cell of the matrix: an item under one configuration (one repeat)."""

    position: int
    item_id: str
    question: str
    config_index: int
    repeat: int
    state: str
    passed: bool | None
    score: float | None
    failure: str | None
    cost: float | None
    session_id: str | None
    run_id: str | None
    steps: int | None
    prompt_tokens: int | None
    completion_tokens: int | None
    latency_ms: float | None
    scores: tuple[dict[str, Any], ...] = ()

    @property
    def ref(self) -> str | None:
        """``SESSION:RUN`` of its run (the Compare page's scheme), None before it ran."""
        return f"{self.session_id}:{self.run_id}" if self.session_id and self.run_id else None

    @property
    def tokens(self) -> int | None:
        """Prompt plus completion tokens."""
        if self.prompt_tokens is None and self.completion_tokens is None:
            return None
        return (self.prompt_tokens or 0) + (self.completion_tokens or 0)


@dataclass(frozen=True)
class ConfigSummary:
    """How one configuration did over every item and repeat."""

    index: int
    label: str
    units: int
    passed: int
    errors: int
    mean_score: float | None
    cost: float | None
    """Total dollars (None when no unit could be priced)."""
    tokens: int
    mean_steps: float | None
    p50_ms: float | None
    p95_ms: float | None
    failures: dict[str, int] = field(default_factory=dict)
    k: int = 1
    """Samples per item (the experiment's repeats)."""
    pass_at_k: float | None = None
    """With k > 1: the unbiased pass@k estimate, averaged over items (None with one repeat)."""
    consistency: float | None = None
    """With k > 1: the share of items whose samples all agree (all passed or all failed)."""

    @property
    def pass_rate(self) -> float | None:
        """Passed ÷ scored units."""
        return self.passed / self.units if self.units else None

    @property
    def interval(self) -> tuple[float, float] | None:
        """The 95% Wilson interval of the pass rate."""
        return wilson(self.passed, self.units)

    @property
    def cost_per_item(self) -> float | None:
        """Mean dollars per unit."""
        return None if self.cost is None or not self.units else self.cost / self.units


def wilson(successes: int, trials: int, z: float = Z95) -> tuple[float, float] | None:
    """The Wilson score interval of a proportion (None for no trials)."""
    if trials <= 0:
        return None
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def pass_at_k(n: int, c: int, k: int) -> float:
    """The unbiased pass@k estimate of one item from ``n`` samples with ``c`` passes: 1 - C(n-c, k) / C(n, k)."""
    if n <= 0 or k <= 0:
        raise ValueError("pass@k needs at least one sample and k ≥ 1")
    k = min(k, n)
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def repeat_figures(units: Sequence[UnitResult], k: int) -> tuple[float | None, float | None]:
    """(mean pass@k, consistency) over the items of ``units`` (one configuration's final units); None for k = 1."""
    if k <= 1:
        return None, None
    samples: dict[int, list[bool]] = {}
    for unit in units:
        samples.setdefault(unit.position, []).append(bool(unit.passed))
    if not samples:
        return None, None
    estimates = [pass_at_k(len(s), sum(s), k) for s in samples.values()]
    agreeing = sum(1 for s in samples.values() if all(s) or not any(s))
    return sum(estimates) / len(estimates), agreeing / len(samples)


def percentile(values: Sequence[float], q: float) -> float | None:
    """The ``q`` quantile (0..1) by linear interpolation; None for no values."""
    ordered = sorted(values)
    if not ordered:
        return None
    k = (len(ordered) - 1) * q
    low, high = math.floor(k), math.ceil(k)
    return ordered[low] + (ordered[high] - ordered[low]) * (k - low)


def _json(dialect: str, column: Any, *path: str) -> ColumnElement[Any]:
    if dialect == "postgresql":
        return cast(cast(column, JSONB)[path].astext, Float)
    return func.json_extract(column, "$." + ".".join(path))


RESULT_COLUMNS = (
    ResultRow.position,
    ResultRow.config_index,
    ResultRow.repeat,
    ResultRow.state,
    ResultRow.passed,
    ResultRow.score,
    ResultRow.failure,
    ResultRow.cost,
    ResultRow.session_id,
    ResultRow.run_id,
)


def unit_results(store: SessionStore, experiment_id: str) -> list[UnitResult]:
    """Every unit of an experiment with its run's figures, item by item (one query, plain columns)."""
    info = get_experiment(store, experiment_id)
    with Session(store.engine) as db:
        dialect = db.get_bind().dialect.name
        payload = EventRow.payload
        finished = and_(
            EventRow.session_id == ResultRow.session_id,
            EventRow.run_id == ResultRow.run_id,
            EventRow.type == "run_finished",
        )
        item = and_(DatasetItemRow.dataset_id == info.dataset_id, DatasetItemRow.position == ResultRow.position)
        query = (
            select(
                *RESULT_COLUMNS,
                DatasetItemRow.key,
                _text(dialect, DatasetItemRow.data, "question"),
                _json(dialect, payload, "steps"),
                _json(dialect, payload, "usage", "prompt_tokens"),
                _json(dialect, payload, "usage", "completion_tokens"),
                _json(dialect, payload, "duration_ms"),
                ResultRow.scores,
            )
            .join(DatasetItemRow, item)
            .outerjoin(EventRow, finished)
            .where(ResultRow.experiment_id == experiment_id)
            .order_by(col(ResultRow.position), col(ResultRow.config_index), col(ResultRow.repeat))
        )
        return [_unit(row) for row in db.exec(query)]


def _text(dialect: str, column: Any, key: str) -> ColumnElement[Any]:
    if dialect == "postgresql":
        return cast(column, JSONB)[key].astext
    return func.json_extract(column, f"$.{key}")


def _unit(row: Any) -> UnitResult:
    def whole(value: Any) -> int | None:
        return None if value is None else int(float(value))

    position, config_index, repeat, state, passed, score, failure, cost, session_id, run_id = row[:10]
    key, question, steps, prompt, completion, ms, scores = row[10:]
    return UnitResult(
        position,
        key,
        str(question or ""),
        config_index,
        repeat,
        state,
        passed,
        score,
        failure,
        cost,
        session_id,
        run_id,
        whole(steps),
        whole(prompt),
        whole(completion),
        None if ms is None else float(ms),
        tuple(scores or ()),
    )


def config_summaries(store: SessionStore, info: ExperimentInfo, units: Sequence[UnitResult]) -> list[ConfigSummary]:
    """Per configuration: counts, mean score and cost by SQL ``GROUP BY``; latency percentiles from ``units``."""
    info = get_experiment(store, info.id)  # the actor's to read, whatever ``info`` the caller holds
    final = col(ResultRow.state).in_(("done", "error"))
    query = (
        select(
            ResultRow.config_index,
            func.count(),
            func.sum(case((col(ResultRow.passed), 1), else_=0)),
            func.sum(case((ResultRow.state == "error", 1), else_=0)),
            func.avg(ResultRow.score),
            func.sum(ResultRow.cost),
        )
        .where(ResultRow.experiment_id == info.id, final)
        .group_by(ResultRow.config_index)
    )
    failures = (
        select(ResultRow.config_index, ResultRow.failure, func.count())
        .where(ResultRow.experiment_id == info.id, final, col(ResultRow.failure).is_not(None))
        .group_by(ResultRow.config_index, ResultRow.failure)
    )
    with Session(store.engine) as db:
        counts = {int(r[0]): r for r in db.exec(query)}
        broken: dict[int, dict[str, int]] = {}
        for index, failure, count in db.exec(failures):
            broken.setdefault(int(index), {})[str(failure)] = int(count)
    return [
        _summary(i, c.label, counts.get(i), broken.get(i, {}), units, info.repeats) for i, c in enumerate(info.configs)
    ]


def _summary(
    index: int, label: str, counts: Any, failures: dict[str, int], units: Sequence[UnitResult], k: int
) -> ConfigSummary:
    mine = [u for u in units if u.config_index == index and u.state in ("done", "error")]
    at_k, consistency = repeat_figures(mine, k)
    latencies = [u.latency_ms for u in mine if u.latency_ms is not None]
    steps = [u.steps for u in mine if u.steps is not None]
    _, total, passed, errors, mean_score, cost = counts if counts is not None else (index, 0, 0, 0, None, None)
    return ConfigSummary(
        index=index,
        label=label,
        units=int(total or 0),
        passed=int(passed or 0),
        errors=int(errors or 0),
        mean_score=None if mean_score is None else float(mean_score),
        cost=None if cost is None else float(cost),
        tokens=sum(u.tokens or 0 for u in mine),
        mean_steps=sum(steps) / len(steps) if steps else None,
        p50_ms=percentile(latencies, 0.5),
        p95_ms=percentile(latencies, 0.95),
        failures=dict(sorted(failures.items(), key=lambda kv: -kv[1])),
        k=k,
        pass_at_k=at_k,
        consistency=consistency,
    )


COMPARE_PAGE = "/compare"


@dataclass(frozen=True)
class Change:
    """One item that passed in one experiment and not in the other, under one configuration."""

    kind: str
    """``regression`` or ``fix``."""
    item_id: str
    question: str
    config_index: int
    config_label: str
    before: UnitResult
    after: UnitResult

    @property
    def compare_url(self) -> str | None:
        """``/compare?left=SESSION:RUN&right=SESSION:RUN``: the two runs side by side."""
        if self.before.ref is None or self.after.ref is None:
            return None
        return f"{COMPARE_PAGE}?{urlencode({'left': self.before.ref, 'right': self.after.ref}, safe=':')}"

    @property
    def reason(self) -> str:
        """The reason of the first failed check on the failing side."""
        failing = self.after if self.kind == "regression" else self.before
        return next((str(s.get("reason", "")) for s in failing.scores if not s.get("passed")), failing.failure or "")


def _passes(units: Sequence[UnitResult]) -> bool | None:
    scored = [u for u in units if u.state in ("done", "error")]
    if not scored:
        return None
    return sum(bool(u.passed) for u in scored) * 2 > len(scored)


def _pairing(baseline: ExperimentInfo, current: ExperimentInfo) -> dict[int, int]:
    labels = {c.label: i for i, c in enumerate(baseline.configs)}
    out = {}
    for index, config in enumerate(current.configs):
        out[index] = labels.get(config.label, index if index < len(baseline.configs) else 0)
    return out


def changes(
    baseline: ExperimentInfo, before: Sequence[UnitResult], current: ExperimentInfo, after: Sequence[UnitResult]
) -> list[Change]:
    """Regressions first, then fixes, each in item order."""
    by_before: dict[tuple[str, int], list[UnitResult]] = {}
    for unit in before:
        by_before.setdefault((unit.item_id, unit.config_index), []).append(unit)
    by_after: dict[tuple[str, int], list[UnitResult]] = {}
    for unit in after:
        by_after.setdefault((unit.item_id, unit.config_index), []).append(unit)
    found = []
    pairing = _pairing(baseline, current)
    for (item_id, index), units in by_after.items():
        old = by_before.get((item_id, pairing[index]), [])
        was, now = _passes(old), _passes(units)
        if was is None or now is None or was == now:
            continue
        kind = "regression" if was else "fix"
        label = current.configs[index].label
        found.append(Change(kind, item_id, units[0].question, index, label, old[0], units[0]))
    order = {"regression": 0, "fix": 1}
    return sorted(found, key=lambda c: (order[c.kind], c.after.position, c.config_index))
