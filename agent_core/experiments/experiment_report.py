"""Plain-text views of an experiment for the terminal: the per-configuration table and the changes."""

from __future__ import annotations

from collections.abc import Sequence

from agent_core.experiments.comparison import Change
from agent_core.experiments.experiment_records import ExperimentInfo
from agent_core.experiments.experiment_results import ConfigSummary
from agent_core.formatting import format_cost, format_duration

HEADER = ("configuration", "pass", "95% interval", "score", "cost", "p50", "p95", "tokens", "failures")


def _rate(value: float | None) -> str:
    return "—" if value is None else f"{value:.0%}"


def summary_rows(summaries: Sequence[ConfigSummary]) -> list[tuple[str, ...]]:
    """One row of text cells per configuration."""
    rows = []
    for s in summaries:
        interval = s.interval
        rows.append(
            (
                s.label,
                f"{s.passed}/{s.units} {_rate(s.pass_rate)}",
                "—" if interval is None else f"{interval[0]:.0%}–{interval[1]:.0%}",
                "—" if s.mean_score is None else f"{s.mean_score:.2f}",
                format_cost(s.cost),
                format_duration(s.p50_ms),
                format_duration(s.p95_ms),
                f"{s.tokens:,}",
                ", ".join(f"{k} {v}" for k, v in s.failures.items()) or "—",
            )
        )
    return rows


def table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Columns padded to their widest cell."""
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    lines = [
        "  ".join(str(cell).ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() for row in [header, *rows]
    ]
    return "\n".join([lines[0], "  ".join("-" * w for w in widths), *lines[1:]])


def repeat_cells(summary: ConfigSummary) -> tuple[str, str]:
    """(pass@k, consistency) as text: ``—`` when not known."""
    return _rate(summary.pass_at_k), _rate(summary.consistency)


def summary_table(summaries: Sequence[ConfigSummary]) -> str:
    """The per-configuration table; with repeats (k > 1) pass@k and consistency follow the pass rate."""
    k = max((s.k for s in summaries), default=1)
    if k <= 1:
        return table(HEADER, summary_rows(summaries))
    header = (*HEADER[:2], f"pass@{k}", "consistency", *HEADER[2:])
    rows = [(*row[:2], *repeat_cells(s), *row[2:]) for row, s in zip(summary_rows(summaries), summaries, strict=True)]
    return table(header, rows)


def judge_text(info: ExperimentInfo) -> str | None:
    """``judge: MODEL`` (with its endpoint when it has one); None without a judge."""
    if info.judge is None:
        return None
    return f"judge: {info.judge.model}" + (f" at {info.judge.base_url}" if info.judge.base_url else "")


def changes_text(found: Sequence[Change]) -> str:
    """Regressions then fixes, one line each with the Compare link."""
    if not found:
        return "no regressions and no fixes against the baseline"
    lines = []
    for change in found:
        mark = "REGRESSION" if change.kind == "regression" else "fix"
        lines.append(
            f"{mark:10}  {change.item_id}  [{change.config_label}]  {change.reason}  {change.compare_url or ''}"
        )
    return "\n".join(lines)
