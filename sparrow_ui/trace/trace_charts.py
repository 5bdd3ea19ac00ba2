"""Altair charts of the Traces page: a run's waterfall of calls, its tokens per step, and a session's turns.

Each ``*_chart`` function turns library structures (``agent_core.views.timeline`` / ``agent_core.views.metrics``) into
an
``alt.Chart`` and draws nothing, so it can be tested on its own; ``draw`` puts a chart on the page.
Labels come from ``t()``, so the legends and tooltips follow the UI language.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import altair as alt
import pandas as pd
import streamlit as st

from agent_core.formatting import format_cost, format_duration, format_tokens
from agent_core.views.metrics import RunMetrics
from agent_core.views.timeline import Timeline, TimelineRow, TimeSplit, TokenRow
from agent_core.views.turns import TurnView
from sparrow_ui.translations.i18n import t
from sparrow_ui.translations.strings_demo import td

Layered = alt.LayerChart | alt.FacetChart
"""What altair types a layered chart as (a layer of facets is a facet chart)."""

MODEL_COLOR = "#2563EB"
TOOL_COLOR = "#059669"
ERROR_COLOR = "#DC2626"
UNFINISHED_COLOR = "#9CA3AF"
COMPLETION_COLOR = "#F59E0B"
OTHER_COLOR = "#D1D5DB"
START_COLOR = "#A5B4FC"
STOPPED_COLOR = "#6B7280"
ROW_HEIGHT = 26
"""Pixels per bar of the waterfall."""
MIN_BANDS = 8
"""Bar charts with fewer bars than this keep the bar width they would have with this many (no fat lone bars)."""
MAX_LANES = 60
"""Runs with more calls than this get the compact waterfall (one line per step) instead of a lane per call."""
COMPACT_HEIGHT = 480
MIN_BAR_SHARE = 1 / 150
"""A call shorter than this share of the run is drawn this wide, so that it stays visible (its tooltip is exact)."""


def draw(chart: alt.Chart | Layered) -> None:
    """Draw a chart at the container's width with Streamlit's theme."""
    st.altair_chart(chart, width="stretch")


def bar_width(bars: int) -> alt.RelativeBandSize:
    """The width of each of ``bars`` bars as a share of its band, so that a few bars are not drawn as wide blocks."""
    return alt.RelativeBandSize(0.8 * min(1.0, bars / MIN_BANDS))


# ── the waterfall of one run ─────────────────────────────────────────────────────────────────────


def _category(row: TimelineRow, stopped_step: int | None) -> str:
    if row.step == stopped_step and (row.error or not row.finished):
        return t("status.cancelled")  # the user's Stop, as the step's chip says: not an error
    if not row.finished:
        return t("traces.kind.unfinished")
    if row.error:
        return t("traces.kind.error")
    return t(f"traces.kind.{row.kind}")


def _lanes(rows: Sequence[TimelineRow]) -> list[str]:
    """One label per bar: ``Step 2 · calculator``, made unique when a step calls the same thing twice."""
    lanes: list[str] = []
    seen: dict[str, int] = {}
    for row in rows:
        lane = f"{t('trace.step', n=row.step)} · {row.label or row.kind}"
        seen[lane] = seen.get(lane, 0) + 1
        lanes.append(lane if seen[lane] == 1 else f"{lane} #{seen[lane]}")
    return lanes


def waterfall_records(timeline: Timeline, stopped_step: int | None = None) -> list[dict[str, Any]]:
    """One record per model or tool call: its lane, drawn extent, category and tooltip texts.

    ``stopped_step``: the step the user stopped the run in (its cut-off call is drawn as stopped).
    """
    minimum = max(timeline.span_ms, 1.0) * MIN_BAR_SHARE
    records = []
    for row, lane in zip(timeline.rows, _lanes(timeline.rows), strict=True):
        tokens = format_tokens(row.tokens, estimated=row.estimated) if row.tokens is not None else "—"
        records.append(
            {
                "lane": lane,
                "start": row.start_ms,
                "end": max(row.end_ms, row.start_ms + minimum),
                "category": _category(row, stopped_step),
                "step": row.step,
                "call": row.label,
                "duration": format_duration(row.duration_ms) if row.finished else t("traces.kind.unfinished"),
                "tokens": tokens,
                "problem": row.error_text or "",
            }
        )
    return records


def _kind_colors() -> alt.Color:
    colors = {
        t("traces.kind.model"): MODEL_COLOR,
        t("traces.kind.tool"): TOOL_COLOR,
        t("traces.kind.error"): ERROR_COLOR,
        t("traces.kind.unfinished"): UNFINISHED_COLOR,
        t("status.cancelled"): STOPPED_COLOR,
    }
    scale = alt.Scale(domain=list(colors), range=list(colors.values()))
    return alt.Color("category:N", title=None, scale=scale, legend=alt.Legend(orient="top"))


def _call_tooltip() -> list[alt.Tooltip]:
    return [
        alt.Tooltip("lane:N", title=t("traces.col.call")),
        alt.Tooltip("category:N", title=t("traces.col.kind")),
        alt.Tooltip("start:Q", title=t("traces.col.start_ms"), format=",.1f"),
        alt.Tooltip("duration:N", title=t("traces.col.duration")),
        alt.Tooltip("tokens:N", title=t("traces.col.tokens")),
        alt.Tooltip("problem:N", title=t("traces.col.error")),
    ]


def resume_offsets(turn: TurnView, timeline: Timeline) -> list[float]:
    """When the run was resumed after an interruption, in ms since it started (the gap before is a pause)."""
    return [(e.ts - timeline.started_at) * 1000 for e in turn.resumes]


def waterfall_chart(
    timeline: Timeline, resumes: Sequence[float] = (), *, end_ms: float | None = None, stopped_step: int | None = None
) -> alt.Chart | Layered:
    """Model and tool calls against time since the run started, coloured by kind and error, with tooltips.

    Up to ``MAX_LANES`` calls get a labelled lane each; a longer run is drawn compactly, one line per step.
    A dashed line marks each resume after an interruption; a solid one the run's end at ``end_ms`` (its
    duration, so the chart ends where the figures say).
    """
    records = waterfall_records(timeline, stopped_step)
    if not records:
        return _resume_rules(resumes).properties(height=40)
    chart = _compact_waterfall(records) if len(records) > MAX_LANES else _lanes_waterfall(records, timeline, end_ms)
    layers = [chart, *([_resume_rules(resumes)] if resumes else []), *([_end_rule(end_ms)] if end_ms else [])]
    return alt.layer(*layers) if len(layers) > 1 else chart


def _end_rule(end_ms: float) -> Layered:
    data = pd.DataFrame({"at": [end_ms], "label": [td("time.run_end", time=format_duration(end_ms))]})
    rule = alt.Chart(data).mark_rule(color="#111827").encode(x="at:Q")
    label = alt.Chart(data).mark_text(align="right", baseline="top", dx=-3, dy=2, color="#111827", fontSize=11)
    return rule + label.encode(x="at:Q", y=alt.value(0), text="label:N")


def waterfall_note(timeline: Timeline) -> str | None:
    """What the chart leaves blank, named: the time before the first call and between calls."""
    if not timeline.rows:
        return None
    first = min(row.start_ms for row in timeline.rows)
    return t("traces.chart.waterfall_note", time=format_duration(first))


def _resume_rules(resumes: Sequence[float]) -> Layered:
    data = pd.DataFrame({"at": list(resumes), "label": t("traces.replay.resumed")}, columns=["at", "label"])
    rule = alt.Chart(data).mark_rule(strokeDash=[4, 3], color="#6B7280").encode(x="at:Q")
    label = alt.Chart(data).mark_text(align="left", baseline="top", dx=3, dy=2, color="#6B7280", fontSize=11)
    return rule + label.encode(x="at:Q", y=alt.value(0), text="label:N")


def _lanes_waterfall(records: list[dict[str, Any]], timeline: Timeline, end_ms: float | None) -> Layered:
    """A lane per call, labelled, with the call's duration at the end of its bar."""
    right = max([r["end"] for r in records] + [timeline.span_ms, end_ms or 0.0, 1.0]) * 1.15  # room for labels
    base = alt.Chart(pd.DataFrame(records)).encode(
        y=alt.Y("lane:N", sort=[r["lane"] for r in records], title=None, axis=alt.Axis(labelLimit=260)),
    )
    bars = base.mark_bar(cornerRadius=3, height=ROW_HEIGHT - 8).encode(
        x=alt.X("start:Q", title=t("traces.chart.ms"), scale=alt.Scale(domain=[0, right], nice=False)),
        x2="end:Q",
        color=_kind_colors(),
        tooltip=_call_tooltip(),
    )
    labels = base.mark_text(align="left", dx=4, fontSize=11, color="#374151").encode(x="end:Q", text="duration:N")
    return (bars + labels).properties(height=alt.Step(ROW_HEIGHT))


def _compact_waterfall(records: list[dict[str, Any]]) -> alt.Chart:
    """A long run: each call as a line at its step's height, in a chart of fixed height."""
    steps = max(r["step"] for r in records)
    return (
        alt.Chart(pd.DataFrame(records))
        .mark_rule(strokeWidth=max(1.0, min(ROW_HEIGHT - 8, COMPACT_HEIGHT / steps * 0.7)))
        .encode(
            x=alt.X("start:Q", title=t("traces.chart.ms")),
            x2="end:Q",
            y=alt.Y(
                "step:Q", title=t("traces.col.step"), scale=alt.Scale(reverse=True, nice=False, domain=[0, steps + 1])
            ),
            color=_kind_colors(),
            tooltip=_call_tooltip(),
        )
        .properties(height=COMPACT_HEIGHT)
    )


# ── tokens per step ──────────────────────────────────────────────────────────────────────────────


def token_records(rows: Sequence[TokenRow]) -> list[dict[str, Any]]:
    """One record per step and kind (prompt / completion), with the estimate flag."""
    return [
        {
            "step": row.step,
            "kind": t(f"traces.tokens.{row.kind}"),
            "order": 0 if row.kind == "prompt" else 1,
            "tokens": row.tokens,
            "estimated": row.estimated,
            "estimate": t("traces.tokens.estimated") if row.estimated else t("traces.tokens.reported"),
        }
        for row in rows
    ]


def tokens_chart(rows: Sequence[TokenRow]) -> alt.Chart:
    """Prompt and completion tokens of each step as stacked bars; estimated counts are drawn lighter."""
    kinds = {t("traces.tokens.prompt"): MODEL_COLOR, t("traces.tokens.completion"): COMPLETION_COLOR}
    return (
        alt.Chart(pd.DataFrame(token_records(rows)))
        .mark_bar(width=bar_width(len({row.step for row in rows})))
        .encode(
            x=alt.X("step:O", title=t("traces.col.step"), axis=alt.Axis(labelAngle=0)),
            y=alt.Y("tokens:Q", stack="zero", title=t("traces.col.tokens")),
            color=alt.Color(
                "kind:N",
                title=None,
                scale=alt.Scale(domain=list(kinds), range=list(kinds.values())),
                legend=alt.Legend(orient="top"),
            ),
            order=alt.Order("order:Q"),
            opacity=alt.condition("datum.estimated", alt.value(0.5), alt.value(1.0)),
            tooltip=[
                alt.Tooltip("step:O", title=t("traces.col.step")),
                alt.Tooltip("kind:N", title=t("traces.col.kind")),
                alt.Tooltip("tokens:Q", title=t("traces.col.tokens"), format=","),
                alt.Tooltip("estimate:N", title=t("traces.tokens.source")),
            ],
        )
        .properties(height=260)
    )


# ── a session across its runs ────────────────────────────────────────────────────────────────────


def session_records(runs: Sequence[RunMetrics], splits: dict[str, TimeSplit] | None = None) -> list[dict[str, Any]]:
    """Per run: tokens by kind and seconds by where they went, in long format.

    With the runs' ``splits`` (by run id) the seconds are model, tools, start and between calls, adding up to
    the duration; without, model and tools as summed and the rest as "other".
    """
    records: list[dict[str, Any]] = []
    for number, run in enumerate(runs, start=1):
        common = {
            "turn": number,
            "question": run.question[:80],
            "total_tokens": format_tokens(run.usage.total_tokens, estimated=run.usage.estimated),
            "cost": format_cost(run.cost, estimated=run.usage.estimated),
            "duration": format_duration(run.duration_ms),
        }
        parts = [
            ("tokens", t("traces.tokens.prompt"), run.usage.prompt_tokens, 0),
            ("tokens", t("traces.tokens.completion"), run.usage.completion_tokens, 1),
            *_time_parts(run, (splits or {}).get(run.run_id)),
        ]
        records += [
            {**common, "measure": measure, "part": part, "value": value, "order": order}
            for measure, part, value, order in parts
        ]
    return records


def _time_parts(run: RunMetrics, split: TimeSplit | None) -> list[tuple[str, str, float, int]]:
    if split is None:
        other = max(0.0, run.duration_ms - run.model_ms - run.tool_ms)
        seconds = [(t("traces.time.model"), run.model_ms), (t("traces.time.tools"), run.tool_ms)]
        seconds.append((t("traces.time.other"), other))
    else:
        seconds = [(t("traces.time.model"), split.model_ms), (t("traces.time.tools"), split.tool_ms)]
        seconds += [(td("time.start"), split.start_ms), (td("time.between"), split.between_ms)]
    return [("time", part, ms / 1000, order) for order, (part, ms) in enumerate(seconds)]


def _session_bars(records: list[dict[str, Any]], measure: str, colors: dict[str, str], title: str) -> alt.Chart:
    return (
        alt.Chart(pd.DataFrame([r for r in records if r["measure"] == measure]))
        .mark_bar(width=bar_width(len({r["turn"] for r in records})))
        .encode(
            x=alt.X("turn:O", title=t("traces.col.turn"), axis=alt.Axis(labelAngle=0)),
            y=alt.Y("value:Q", stack="zero", title=title),
            color=alt.Color(
                "part:N",
                title=None,
                scale=alt.Scale(domain=list(colors), range=list(colors.values())),
                legend=alt.Legend(orient="top"),
            ),
            order=alt.Order("order:Q"),
            tooltip=[
                alt.Tooltip("turn:O", title=t("traces.col.turn")),
                alt.Tooltip("question:N", title=t("traces.col.question")),
                alt.Tooltip("part:N", title=t("traces.col.kind")),
                alt.Tooltip("value:Q", title=title, format=",.2f" if measure == "time" else ","),
                alt.Tooltip("total_tokens:N", title=t("traces.col.tokens")),
                alt.Tooltip("cost:N", title=t("traces.col.cost")),
                alt.Tooltip("duration:N", title=t("traces.col.duration")),
            ],
        )
        .properties(height=260)
    )


def session_tokens_chart(runs: Sequence[RunMetrics]) -> alt.Chart:
    """Prompt and completion tokens of each turn of a session, stacked."""
    colors = {t("traces.tokens.prompt"): MODEL_COLOR, t("traces.tokens.completion"): COMPLETION_COLOR}
    return _session_bars(session_records(runs), "tokens", colors, t("traces.col.tokens"))


def session_time_chart(runs: Sequence[RunMetrics], splits: dict[str, TimeSplit] | None = None) -> alt.Chart:
    """Where each turn's time went: waiting for the model, in tools, and Sparrow's own work (named parts)."""
    colors = {t("traces.time.model"): MODEL_COLOR, t("traces.time.tools"): TOOL_COLOR}
    if splits is None:
        colors[t("traces.time.other")] = OTHER_COLOR
    else:
        colors |= {td("time.start"): START_COLOR, td("time.between"): OTHER_COLOR}
    return _session_bars(session_records(runs, splits), "time", colors, t("traces.chart.seconds"))
