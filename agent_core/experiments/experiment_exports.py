"""An experiment's results as JSON, CSV and JUnit XML (so CI systems show each item as a test case)."""

from __future__ import annotations

import csv
import io
import json
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from typing import Any

from agent_core.experiments.comparison import Change
from agent_core.experiments.experiment_records import ExperimentInfo
from agent_core.experiments.experiment_results import ConfigSummary, UnitResult

CSV_COLUMNS = (
    "item",
    "config",
    "repeat",
    "state",
    "passed",
    "score",
    "failure",
    "steps",
    "tokens",
    "cost",
    "latency_ms",
    "session",
    "run",
    "reasons",
)


def summary_dict(summary: ConfigSummary) -> dict[str, Any]:
    """One configuration's figures as plain values."""
    interval = summary.interval
    return {
        "config": summary.label,
        "units": summary.units,
        "passed": summary.passed,
        "errors": summary.errors,
        "pass_rate": summary.pass_rate,
        "interval95": list(interval) if interval else None,
        "k": summary.k,
        "pass_at_k": summary.pass_at_k,
        "consistency": summary.consistency,
        "mean_score": summary.mean_score,
        "cost": summary.cost,
        "cost_per_item": summary.cost_per_item,
        "tokens": summary.tokens,
        "mean_steps": summary.mean_steps,
        "p50_ms": summary.p50_ms,
        "p95_ms": summary.p95_ms,
        "failures": summary.failures,
    }


def unit_dict(unit: UnitResult, info: ExperimentInfo) -> dict[str, Any]:
    """One unit as plain values."""
    return {
        "item": unit.item_id,
        "config": info.configs[unit.config_index].label,
        "repeat": unit.repeat,
        "state": unit.state,
        "passed": unit.passed,
        "score": unit.score,
        "failure": unit.failure,
        "steps": unit.steps,
        "tokens": unit.tokens,
        "cost": unit.cost,
        "latency_ms": unit.latency_ms,
        "session": unit.session_id,
        "run": unit.run_id,
        "scores": list(unit.scores),
    }


def to_json(
    info: ExperimentInfo,
    summaries: Sequence[ConfigSummary],
    units: Sequence[UnitResult],
    found: Sequence[Change] = (),
) -> str:
    """The whole experiment: its exact configurations, per-configuration figures, changes and every unit."""
    data = {
        "experiment": {
            "id": info.id,
            "name": info.name,
            "dataset": info.dataset_id,
            "status": info.status,
            "repeats": info.repeats,
            "baseline": info.baseline_id,
            "configs": [c.model_dump(mode="json") for c in info.configs],
            "judge": info.judge.model_dump(mode="json") if info.judge else None,
        },
        "summary": [summary_dict(s) for s in summaries],
        "changes": [
            {"kind": c.kind, "item": c.item_id, "config": c.config_label, "compare": c.compare_url, "reason": c.reason}
            for c in found
        ],
        "results": [unit_dict(u, info) for u in units],
    }
    return json.dumps(data, ensure_ascii=False, indent=2)


def to_csv(info: ExperimentInfo, units: Sequence[UnitResult]) -> str:
    """One line per unit."""
    out = io.StringIO()
    writer: csv.DictWriter[str] = csv.DictWriter(out, fieldnames=CSV_COLUMNS)
    writer.writeheader()
    for unit in units:
        row = unit_dict(unit, info)
        row["reasons"] = " | ".join(f"{s.get('name')}: {s.get('reason')}" for s in unit.scores)
        row.pop("scores")
        writer.writerow({k: row.get(k) for k in CSV_COLUMNS} | {"session": unit.session_id, "run": unit.run_id})
    return out.getvalue()


def to_junit(info: ExperimentInfo, units: Sequence[UnitResult]) -> str:
    """JUnit XML: one test suite per configuration, one test case per item (and repeat)."""
    suites = ET.Element("testsuites", name=info.name)
    for index, config in enumerate(info.configs):
        mine = [u for u in units if u.config_index == index]
        failed = sum(1 for u in mine if u.state == "done" and not u.passed)
        errors = sum(1 for u in mine if u.state != "done")
        seconds = sum((u.latency_ms or 0) for u in mine) / 1000
        suite = ET.SubElement(
            suites,
            "testsuite",
            name=config.label,
            tests=str(len(mine)),
            failures=str(failed),
            errors=str(errors),
            time=f"{seconds:.3f}",
        )
        for unit in mine:
            _case(suite, info, unit)
    ET.indent(suites)
    return ET.tostring(suites, encoding="unicode", xml_declaration=True) + "\n"


def _case(suite: ET.Element, info: ExperimentInfo, unit: UnitResult) -> None:
    name = unit.item_id + (f" #{unit.repeat + 1}" if info.repeats > 1 else "")
    case = ET.SubElement(
        suite, "testcase", classname=suite.get("name", ""), name=name, time=f"{(unit.latency_ms or 0) / 1000:.3f}"
    )
    reasons = "; ".join(f"{s.get('name')}: {s.get('reason')}" for s in unit.scores if not s.get("passed"))
    if unit.state == "done" and not unit.passed:
        ET.SubElement(case, "failure", message=reasons or (unit.failure or "failed"), type=unit.failure or "failed")
    elif unit.state != "done":
        ET.SubElement(case, "error", message=reasons or unit.state, type=unit.state)
    if unit.ref:
        ET.SubElement(case, "system-out").text = f"run {unit.ref}"
