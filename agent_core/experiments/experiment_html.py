"""An experiment as a section of the offline HTML report: its exact configurations and judge, per configuration
the pass rate with its 95% interval (and pass@k, consistency with repeats), mean score, cost, p50/p95 latency and
the failure breakdown, the regressions and fixes against its baseline, and the item matrix.

The same self-contained page as a session's report (``trace_export.html``: its style, and a Content-Security-Policy
that forbids every request). Every text is untrusted (questions, item ids, reasons, names, URLs): secrets are
masked and it is escaped; nothing from the store becomes markup.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Any

from agent_core.experiments.comparison import Change
from agent_core.experiments.experiment_html_words import experiment_words
from agent_core.experiments.experiment_records import ExperimentInfo
from agent_core.experiments.experiment_results import ConfigSummary, UnitResult
from agent_core.formatting import format_cost, format_duration, format_timestamp, format_tokens
from agent_core.guards.masking import mask_secrets
from agent_core.trace_export.html import CSP, STYLE
from agent_core.trace_export.html_strings import ReportLang

EXTRA_STYLE = (
    ".pass{color:var(--ok)}.fail{color:var(--err)}td.cell{font-size:.85rem;white-space:nowrap}"
    ".why{color:var(--mute);font-size:.8rem;white-space:normal}.wide{overflow-x:auto}"
)
QUESTION_CHARS = 300
"""A question is shown up to this many characters in the matrix (the whole item is in the JSON export)."""


def _text(value: Any) -> str:
    """Untrusted text made safe for HTML: secrets masked, then every markup character escaped."""
    return escape(mask_secrets(str(value)), quote=True)


def _rate(value: float | None) -> str:
    return "—" if value is None else f"{value:.0%}"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]], key: str) -> str:
    """A table of already-escaped cells (``header`` is escaped here)."""
    head = "".join(f"<th>{_text(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(row) + "</tr>" for row in rows)
    return f'<div class="wide"><table data-table="{key}"><tr>{head}</tr>{body}</table></div>'


def _cell(value: Any, *, number: bool = False) -> str:
    return f'<td class="n">{_text(value)}</td>' if number else f"<td>{_text(value)}</td>"


def experiment_section(
    info: ExperimentInfo,
    summaries: Sequence[ConfigSummary],
    units: Sequence[UnitResult],
    found: Sequence[Change] = (),
    lang: ReportLang = "en",
) -> str:
    """The experiment's section: heading, configurations, summary, changes (with a baseline), matrix."""
    w = experiment_words(lang)
    created = format_timestamp(info.created_at)
    facts = w["facts"].format(
        id=info.id, status=info.status, dataset=info.dataset_id, repeats=info.repeats, created=created
    )
    parts = [
        f'<section data-experiment="{_text(info.id)}">',
        f"<h2>{_text(info.name)}</h2>",
        f'<p class="mute">{_text(facts)}</p>',
        _configs(info, w),
        f"<h3>{_text(w['per_config'])}</h3>",
        _summary(summaries, w),
    ]
    if info.baseline_id is not None:
        parts += [f"<h3>{_text(w['against'].format(id=info.baseline_id))}</h3>", _changes(found, w)]
    parts += [f"<h3>{_text(w['items'])}</h3>", _matrix(info, units, w), "</section>"]
    return "\n".join(parts)


def _configs(info: ExperimentInfo, w: dict[str, str]) -> str:
    keys = ("configuration", "model", "base_url", "protocol", "temperature", "max_steps", "tools", "system_prompt")
    rows = []
    for config in info.configs:
        tools = w["all_builtin"] if config.tools is None else ", ".join(config.tools) or w["no_tools"]
        values = (config.label, config.model, config.base_url or "—", config.protocol, config.temperature)
        values += (config.max_steps, tools, config.system_prompt or "—")
        rows.append([_cell(v) for v in values])
    judge = ""
    if info.judge is not None:
        judged = w["judge_at" if info.judge.base_url else "judge"].format(
            model=info.judge.model, url=info.judge.base_url
        )
        judge = f'<p data-judge="{_text(info.judge.model)}">{_text(judged)}</p>'
    return _table([w[k] for k in keys], rows, "configs") + judge


def _summary(summaries: Sequence[ConfigSummary], w: dict[str, str]) -> str:
    k = max((s.k for s in summaries), default=1)
    header = [w["configuration"], w["pass"], w["interval"]]
    header += [w["pass_at"].format(k=k), w["consistency"]] if k > 1 else []
    header += [w["mean_score"], w["cost"], w["cost_per_item"], "p50", "p95", w["tokens"], w["failures"]]
    rows = []
    for s in summaries:
        interval = "—" if s.interval is None else f"{s.interval[0]:.0%} – {s.interval[1]:.0%}"
        row = [_cell(s.label), _cell(f"{s.passed}/{s.units} ({_rate(s.pass_rate)})", number=True)]
        row += [_cell(interval, number=True)]
        row += [_cell(_rate(s.pass_at_k), number=True), _cell(_rate(s.consistency), number=True)] if k > 1 else []
        row += [_cell("—" if s.mean_score is None else f"{s.mean_score:.2f}", number=True)]
        row += [_cell(format_cost(s.cost), number=True), _cell(format_cost(s.cost_per_item), number=True)]
        row += [_cell(format_duration(s.p50_ms), number=True), _cell(format_duration(s.p95_ms), number=True)]
        row += [_cell(format_tokens(s.tokens), number=True)]
        row += [_cell(", ".join(f"{name} × {count}" for name, count in s.failures.items()) or "—")]
        rows.append(row)
    return _table(header, rows, "summary")


def _changes(found: Sequence[Change], w: dict[str, str]) -> str:
    if not found:
        return f"<p>{_text(w['no_changes'])}</p>"
    rows = []
    for change in found:
        mark = "fail" if change.kind == "regression" else "pass"
        word = w["regression"] if change.kind == "regression" else w["fix"]
        kind = f'<td class="{mark}" data-kind="{change.kind}">{_text(word)}</td>'
        refs = f"{change.before.ref or '—'} → {change.after.ref or '—'}"
        rows.append([kind, _cell(change.item_id), _cell(change.config_label), _cell(change.reason), _cell(refs)])
    return _table([w[k] for k in ("change", "item", "configuration", "reason", "runs")], rows, "changes")


def _unit_cell(unit: UnitResult | None, w: dict[str, str]) -> str:
    if unit is None:
        return '<td class="cell">—</td>'
    mark, css = ("error", "fail") if unit.state == "error" else ("pass", "pass") if unit.passed else ("fail", "fail")
    mark = w[mark]
    if unit.state not in ("done", "error"):
        mark, css = unit.state, "mute"
    figures = ["—" if unit.score is None else f"{unit.score:.2f}"]
    figures += [w["steps"].format(n=unit.steps)] if unit.steps is not None else []
    figures += [w["tok"].format(n=format_tokens(unit.tokens))] if unit.tokens is not None else []
    figures += [format_cost(unit.cost)] if unit.cost is not None else []
    figures += [format_duration(unit.latency_ms)] if unit.latency_ms is not None else []
    reasons = "; ".join(f"{s.get('name')}: {s.get('reason')}" for s in unit.scores if not s.get("passed"))
    why = f'<div class="why">{_text(reasons)}</div>' if reasons else ""
    run = f'<div class="why">{_text(w["run"].format(ref=unit.ref))}</div>' if unit.ref else ""
    return (
        f'<td class="cell" data-cell="{_text(unit.item_id)}/{unit.config_index}/{unit.repeat}">'
        f'<span class="{css}">{_text(mark)}</span> · {_text(" · ".join(figures))}{why}{run}</td>'
    )


def _matrix(info: ExperimentInfo, units: Sequence[UnitResult], w: dict[str, str]) -> str:
    cells: dict[tuple[int, int], dict[int, UnitResult]] = {}
    firsts: dict[tuple[int, int], UnitResult] = {}
    for unit in units:
        cells.setdefault((unit.position, unit.repeat), {})[unit.config_index] = unit
        firsts.setdefault((unit.position, unit.repeat), unit)
    rows = []
    for key in sorted(cells):
        first = firsts[key]
        name = first.item_id + (f" #{first.repeat + 1}" if info.repeats > 1 else "")
        question = first.question if len(first.question) <= QUESTION_CHARS else first.question[:QUESTION_CHARS] + "…"
        row = [_cell(name), _cell(question)]
        row += [_unit_cell(cells[key].get(index), w) for index in range(len(info.configs))]
        rows.append(row)
    if not rows:
        return f"<p>{_text(w['nothing_ran'])}</p>"
    return _table((w["item"], w["question"], *(c.label for c in info.configs)), rows, "matrix")


def experiment_html(
    info: ExperimentInfo,
    summaries: Sequence[ConfigSummary],
    units: Sequence[UnitResult],
    found: Sequence[Change] = (),
    lang: ReportLang = "en",
) -> str:
    """The whole report of one experiment as one self-contained HTML document (UTF-8 text), in ``lang``."""
    w = experiment_words(lang)
    title = w["title"].format(name=info.name)
    return (
        f'<!DOCTYPE html>\n<html lang="{"zh-CN" if lang == "zh" else "en"}">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f'<meta name="referrer" content="no-referrer">\n<title>{_text(title)}</title>\n'
        f"<style>{STYLE}{EXTRA_STYLE}</style>\n</head>\n<body>\n<h1>{_text(title)}</h1>\n"
        f'<p class="mute">{_text(w["intro"])}</p>\n'
        f"{experiment_section(info, summaries, units, found, lang)}\n</body>\n</html>\n"
    )
