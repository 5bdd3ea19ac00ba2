"""An experiment shown and exported: plain-text tables for the terminal (the per-configuration table, the changes),
the offline HTML report in English or Chinese (``eval show --html FILE --lang en|zh``), and its results as JSON, CSV
and JUnit XML (so CI systems show each item as a test case). The HTML report holds the exact configurations and
judge, per configuration the pass rate with its 95% interval (and pass@k, consistency with repeats), mean score,
cost, p50/p95 latency and the failure breakdown, the regressions and fixes against its baseline, and the item
matrix, in the same self-contained page as a session's report (``trace_export.html``: its style, and a
Content-Security-Policy that forbids every request). Every text is untrusted (questions, item ids, reasons, names,
URLs): secrets are masked and it is escaped; nothing from the store becomes markup.
"""

from __future__ import annotations

import csv
import io
import json
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from typing import Any

from agent_core.experiments.records import ExperimentInfo
from agent_core.experiments.results import Change, ConfigSummary, UnitResult
from agent_core.formatting import format_cost, format_duration, format_timestamp, format_tokens
from agent_core.trace_export.html import ReportLang, in_lang, page, safe_text

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


EXTRA_STYLE = (
    ".pass{color:var(--ok)}.fail{color:var(--err)}td.cell{font-size:.85rem;white-space:nowrap}"
    ".why{color:var(--mute);font-size:.8rem;white-space:normal}.wide{overflow-x:auto}"
)
QUESTION_CHARS = 300
"""A question is shown up to this many characters in the matrix (the whole item is in the JSON export)."""


def _table(header: Sequence[str], rows: Sequence[Sequence[str]], key: str) -> str:
    """A table of already-escaped cells (``header`` is escaped here)."""
    head = "".join(f"<th>{safe_text(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(row) + "</tr>" for row in rows)
    return f'<div class="wide"><table data-table="{key}"><tr>{head}</tr>{body}</table></div>'


def _cell(value: Any, *, number: bool = False) -> str:
    return f'<td class="n">{safe_text(value)}</td>' if number else f"<td>{safe_text(value)}</td>"


def experiment_section(
    info: ExperimentInfo,
    summaries: Sequence[ConfigSummary],
    units: Sequence[UnitResult],
    found: Sequence[Change] = (),
    lang: ReportLang = "en",
) -> str:
    """The experiment's section: heading, configurations, summary, changes (with a baseline), matrix."""
    w = in_lang(_WORDS, lang)
    created = format_timestamp(info.created_at)
    facts = w["facts"].format(
        id=info.id, status=info.status, dataset=info.dataset_id, repeats=info.repeats, created=created
    )
    parts = [
        f'<section data-experiment="{safe_text(info.id)}">',
        f"<h2>{safe_text(info.name)}</h2>",
        f'<p class="mute">{safe_text(facts)}</p>',
        _configs(info, w),
        f"<h3>{safe_text(w['per_config'])}</h3>",
        _summary(summaries, w),
    ]
    if info.baseline_id is not None:
        parts += [f"<h3>{safe_text(w['against'].format(id=info.baseline_id))}</h3>", _changes(found, w)]
    parts += [f"<h3>{safe_text(w['items'])}</h3>", _matrix(info, units, w), "</section>"]
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
        judge = f'<p data-judge="{safe_text(info.judge.model)}">{safe_text(judged)}</p>'
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
        return f"<p>{safe_text(w['no_changes'])}</p>"
    rows = []
    for change in found:
        mark = "fail" if change.kind == "regression" else "pass"
        word = w["regression"] if change.kind == "regression" else w["fix"]
        kind = f'<td class="{mark}" data-kind="{change.kind}">{safe_text(word)}</td>'
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
    reasons = _failed_reasons(unit)
    why = f'<div class="why">{safe_text(reasons)}</div>' if reasons else ""
    run = f'<div class="why">{safe_text(w["run"].format(ref=unit.ref))}</div>' if unit.ref else ""
    return (
        f'<td class="cell" data-cell="{safe_text(unit.item_id)}/{unit.config_index}/{unit.repeat}">'
        f'<span class="{css}">{safe_text(mark)}</span> · {safe_text(" · ".join(figures))}{why}{run}</td>'
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
        return f"<p>{safe_text(w['nothing_ran'])}</p>"
    return _table((w["item"], w["question"], *(c.label for c in info.configs)), rows, "matrix")


def experiment_html(
    info: ExperimentInfo,
    summaries: Sequence[ConfigSummary],
    units: Sequence[UnitResult],
    found: Sequence[Change] = (),
    lang: ReportLang = "en",
) -> str:
    """The whole report of one experiment as one self-contained HTML document (UTF-8 text), in ``lang``."""
    w = in_lang(_WORDS, lang)
    title = w["title"].format(name=info.name)
    section = experiment_section(info, summaries, units, found, lang)
    body = f'<h1>{safe_text(title)}</h1>\n<p class="mute">{safe_text(w["intro"])}</p>\n{section}'
    return page(title, lang, body, extra_style=EXTRA_STYLE)


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


def _failed_reasons(unit: UnitResult) -> str:
    """``check: reason; check: reason`` of the unit's failed checks ("" when none failed)."""
    return "; ".join(f"{s.get('name')}: {s.get('reason')}" for s in unit.scores if not s.get("passed"))


def _case(suite: ET.Element, info: ExperimentInfo, unit: UnitResult) -> None:
    name = unit.item_id + (f" #{unit.repeat + 1}" if info.repeats > 1 else "")
    case = ET.SubElement(
        suite, "testcase", classname=suite.get("name", ""), name=name, time=f"{(unit.latency_ms or 0) / 1000:.3f}"
    )
    reasons = _failed_reasons(unit)
    if unit.state == "done" and not unit.passed:
        ET.SubElement(case, "failure", message=reasons or (unit.failure or "failed"), type=unit.failure or "failed")
    elif unit.state != "done":
        ET.SubElement(case, "error", message=reasons or unit.state, type=unit.state)
    if unit.ref:
        ET.SubElement(case, "system-out").text = f"run {unit.ref}"


_WORDS: dict[str, tuple[str, str]] = {
    "title": ("Sparrow experiment: {name}", "Sparrow 实验：{name}"),
    "intro": (
        "Sparrow experiment report. This file is self-contained: it loads nothing from the network. "
        "Every item is a recorded run: open its session (the run named in each cell) in Sparrow's Traces.",
        "Sparrow 实验报告。此文件完全独立：不会从网络加载任何内容。"
        "每个条目都是一次已记录的运行：在 Sparrow 的追踪页面打开它的会话（每个单元格中给出的运行）。",
    ),
    "facts": (
        "{id} · {status} · dataset {dataset} · {repeats} repeat(s) · created {created}",
        "{id} · {status} · 数据集 {dataset} · 重复 {repeats} 次 · 创建于 {created}",
    ),
    "per_config": ("Per configuration", "按配置"),
    "against": ("Against the baseline {id}", "与基线 {id} 对比"),
    "items": ("Items", "条目"),
    "configuration": ("configuration", "配置"),
    "model": ("model", "模型"),
    "base_url": ("base URL", "接口地址"),
    "protocol": ("protocol", "协议"),
    "temperature": ("temperature", "温度"),
    "max_steps": ("max steps", "最大步数"),
    "tools": ("tools", "工具"),
    "system_prompt": ("system prompt", "系统提示词"),
    "all_builtin": ("all built-in (no approval)", "全部内置工具（无需批准）"),
    "no_tools": ("none", "无"),
    "judge": ("judge: {model}", "评审模型：{model}"),
    "judge_at": ("judge: {model} at {url}", "评审模型：{model}（{url}）"),
    "pass": ("pass", "通过"),
    "fail": ("fail", "未通过"),
    "error": ("error", "出错"),
    "interval": ("95% interval", "95% 区间"),
    "pass_at": ("pass@{k}", "pass@{k}"),
    "consistency": ("consistency", "一致性"),
    "mean_score": ("mean score", "平均分"),
    "cost": ("cost", "费用"),
    "cost_per_item": ("cost per item", "每条费用"),
    "tokens": ("tokens", "词元"),
    "failures": ("failures", "失败原因"),
    "no_changes": ("No regressions and no fixes against the baseline.", "与基线相比没有退步，也没有修复。"),
    "change": ("change", "变化"),
    "regression": ("regression", "退步"),
    "fix": ("fix", "修复"),
    "item": ("item", "条目"),
    "reason": ("reason", "原因"),
    "runs": ("runs (before → now)", "运行（之前 → 现在）"),
    "question": ("question", "问题"),
    "steps": ("{n} steps", "{n} 步"),
    "tok": ("{n} tok", "{n} 词元"),
    "run": ("run {ref}", "运行 {ref}"),
    "nothing_ran": ("No item has run yet.", "还没有条目运行过。"),
}
