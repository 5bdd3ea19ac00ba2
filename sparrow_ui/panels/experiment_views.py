"""The Experiments page's tables as data frames: the per-configuration summary, the changes, the matrix.

Each ``*_frame`` builds a frame from library structures and draws nothing, so it can be tested on its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import quote

import pandas as pd

from agent_core.experiments.records import ExperimentInfo
from agent_core.experiments.results import Change, ConfigSummary, UnitResult
from agent_core.formatting import format_cost, format_duration, format_tokens
from agent_core.guards.untrusted import plain
from sparrow_ui.translations.strings_experiments import te

CELL_TEXT = r"#(.*)$"
"""The matrix cells are links whose fragment is the text shown (``LinkColumn(display_text=...)``)."""


def _rate(value: float | None) -> str:
    return "—" if value is None else f"{value:.0%}"


def summary_frame(summaries: Sequence[ConfigSummary]) -> pd.DataFrame:
    """One row per configuration: pass rate with its interval, score, cost, latency, tokens, failures."""
    rows = []
    for s in summaries:
        low, high = s.interval or (None, None)
        rows.append(
            {
                te("col.config"): s.label,
                te("col.pass_rate"): f"{s.passed}/{s.units} ({_rate(s.pass_rate)})",
                te("col.interval"): "—" if low is None else f"{low:.0%} – {high:.0%}",
                **_repeat_columns(s),
                te("col.score"): None if s.mean_score is None else round(s.mean_score, 3),
                te("col.cost"): format_cost(s.cost),
                te("col.cost_item"): format_cost(s.cost_per_item),
                te("col.p50"): format_duration(s.p50_ms),
                te("col.p95"): format_duration(s.p95_ms),
                te("col.tokens"): format_tokens(s.tokens),
                te("col.steps"): None if s.mean_steps is None else round(s.mean_steps, 1),
                te("col.failures"): ", ".join(f"{k} × {v}" for k, v in s.failures.items()) or "—",
            }
        )
    return pd.DataFrame(rows)


def _repeat_columns(summary: ConfigSummary) -> dict[str, str]:
    """pass@k and consistency, only with repeats (k > 1)."""
    if summary.k <= 1:
        return {}
    return {f"pass@{summary.k}": _rate(summary.pass_at_k), te("col.consistency"): _rate(summary.consistency)}


def changes_frame(found: Sequence[Change]) -> pd.DataFrame:
    """Regressions first, then fixes, each with a link opening its two runs in Compare."""
    # Each label once, not per row: a lookup reads the language setting (1,500 changes made it 1.5 s of a rerun).
    kind, item, config, reason, compare = (te(f"col.{k}") for k in ("kind", "item", "config", "reason", "compare"))
    kinds = {k: ("🔻 " if k == "regression" else "🔺 ") + te(f"kind.{k}") for k in {c.kind for c in found}}
    return pd.DataFrame(
        [
            {kind: kinds[c.kind], item: c.item_id, config: c.config_label, reason: c.reason, compare: c.compare_url}
            for c in found
        ]
    )


def change_line(change: Change) -> str:
    """One change as Markdown: kind, item, configuration, reason, then Compare and Trace links (plain text escaped)."""
    mark = "🔻" if change.kind == "regression" else "🔺"
    links = []
    if change.compare_url:
        links.append(f"[{te('col.compare')}]({change.compare_url})")
    if (trace := trace_link(change.after)) is not None:
        links.append(f"[{te('col.trace')}]({trace.split('#', 1)[0]})")
    where = f"**{plain(change.item_id)}** · {plain(change.config_label)}"
    return f"{mark} {te(f'kind.{change.kind}')} · {where} — {plain(change.reason)} · {' · '.join(links)}"


def cell_text(unit: UnitResult) -> str:
    """``✅ 1.00 · 3 steps · 1.2k tok · $0.001 · 450 ms``."""
    mark = "⚠️" if unit.state == "error" else "✅" if unit.passed else "❌" if unit.state == "done" else "…"
    parts = [mark, "—" if unit.score is None else f"{unit.score:.2f}"]
    if unit.steps is not None:
        parts.append(f"{unit.steps} st")
    if unit.tokens is not None:
        parts.append(f"{format_tokens(unit.tokens)} tok")
    if unit.cost is not None:
        parts.append(format_cost(unit.cost))
    if unit.latency_ms is not None:
        parts.append(format_duration(unit.latency_ms))
    return " · ".join(parts)


def trace_link(unit: UnitResult) -> str | None:
    """``/traces?session=ID#<cell text>``: opens the item's session in Traces; the fragment is what is shown."""
    if unit.session_id is None:
        return None
    return f"/traces?session={quote(unit.session_id)}#{cell_text(unit)}"


def matrix_frame(info: ExperimentInfo, units: Sequence[UnitResult]) -> pd.DataFrame:
    """Rows = items (and repeats), columns = configurations; each cell a link to that run's trace."""
    labels = [c.label for c in info.configs]
    item_column, question_column = te("col.item"), te("col.question")
    rows: dict[tuple[int, int], dict[str, str | None]] = {}
    for unit in units:
        row = rows.get((unit.position, unit.repeat))
        if row is None:
            name = unit.item_id + (f" #{unit.repeat + 1}" if info.repeats > 1 else "")
            row = rows[(unit.position, unit.repeat)] = {item_column: name, question_column: unit.question[:120]}
        row[labels[unit.config_index]] = trace_link(unit)
    return pd.DataFrame([rows[k] for k in sorted(rows)], columns=[item_column, question_column, *labels])


def experiments_frame(found: Sequence[ExperimentInfo], formatted_times: Sequence[str]) -> pd.DataFrame:
    """The list of experiments."""
    return pd.DataFrame(
        [
            {
                te("exp.name"): e.name,
                te("col.status"): e.status,
                te("col.config"): ", ".join(c.label for c in e.configs),
                te("col.created"): when,
                "id": e.id,
            }
            for e, when in zip(found, formatted_times, strict=True)
        ]
    )
