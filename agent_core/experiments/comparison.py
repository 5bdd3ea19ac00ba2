"""An experiment against a baseline: regressions (passed before, fails now) and fixes, item by item.

Items are matched by their id; configurations by label, else by position, else the baseline's first. An item
passes under a configuration when most of its repeats pass.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import urlencode

from agent_core.experiments.experiment_records import ExperimentInfo
from agent_core.experiments.experiment_results import UnitResult

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
