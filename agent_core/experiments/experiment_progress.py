"""An experiment's progress: done/total, pass rate so far, cost so far, time left; shared by the CLI and the page."""

from __future__ import annotations

import dataclasses
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import func
from sqlmodel import Session, col, select

from agent_core.experiments.experiment_records import FINAL_STATES, ExperimentInfo
from agent_core.experiments.experiment_tables import ResultRow
from agent_core.formatting import format_cost, format_duration
from agent_core.store import SessionStore


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
