"""A run's figures, its steps as a sortable, filterable table, and the Inspector: everything about one step.

The Inspector shows what the model really saw and wrote: the exact messages of the request
(``ModelFinished.messages``), the raw output, what Sparrow parsed from it, and each observation. Every text
is shown with ``st.code`` (literal, never HTML, with a copy button).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Literal

import streamlit as st

from agent_core.events import ModelFinished
from agent_core.formatting import clip, format_cost, format_duration
from agent_core.guards.untrusted import neutralize
from agent_core.models.pricing import PriceTable
from agent_core.views.metrics import RunMetrics
from agent_core.views.timeline import TimeSplit
from agent_core.views.transcript import ActionView, StepView, TurnView
from sparrow_ui.elements.table_cells import COST, DURATION_MS, styled
from sparrow_ui.elements.widgets import choose, translated_selectbox
from sparrow_ui.steps import renderer as render
from sparrow_ui.translations.i18n import t
from sparrow_ui.translations.strings_demo import td

LONG_TEXT = 1500
"""Texts longer than this get a scrolling box instead of their full height."""


def run_summary(metrics: RunMetrics, status: str, split: TimeSplit | None = None) -> None:
    """Status, steps, tokens (prompt → completion), cost, and time with its split (parts that add up, when given)."""
    usage = metrics.usage
    tokens = render.usage_text(usage)
    parts = t("traces.col.split", model=format_duration(metrics.model_ms), tools=format_duration(metrics.tool_ms))
    if split is not None:
        ms = (split.model_ms, split.tool_ms, split.start_ms, split.between_ms)
        parts = td(
            "time.split", **dict(zip(("model", "tools", "start", "between"), map(format_duration, ms), strict=True))
        )
    row = st.container(horizontal=True, gap="large")
    row.metric(t("traces.col.status"), status, width="content")
    row.metric(t("traces.col.steps"), str(metrics.steps), width="content")
    row.metric(t("traces.col.tokens"), tokens, width="content")
    row.metric(t("traces.col.cost"), format_cost(metrics.cost, estimated=usage.estimated), width="content")
    row.metric(
        t("traces.col.duration"),
        format_duration(metrics.duration_ms),
        delta=parts,
        delta_color="off",
        delta_arrow="off",
        width="content",
        help=td("time.split_help") if split is not None else None,
    )


# ── the steps table ──────────────────────────────────────────────────────────────────────────────


def step_problem(step: StepView) -> str:
    """What went wrong in a step, in one line ("" when nothing did)."""
    tool_errors = [
        a.error if a.error.startswith(f"{a.tool}:") else f"{a.tool}: {a.error}"  # a tool may name itself already
        for a in step.actions
        if a.error
    ]
    problems = [p for p in (step.model_error, step.format_error, *tool_errors) if p]
    return " · ".join(" ".join(p.split()) for p in problems)


def step_rows(metrics: RunMetrics, turn: TurnView) -> list[dict[str, Any]]:
    """One row per step: what it did, its tokens, times, cost (priced as ``metrics`` is) and any error."""
    rows = []
    for step in turn.numbered_steps:
        usage, tools = step.usage, step.tools
        rows.append(
            {
                "step": step.number,
                "action": ", ".join(tools) or (t("trace.answer") if step.final_answer is not None else ""),
                "thought": clip(step.thought, 120, one_line=True),
                "prompt": usage.prompt_tokens,
                "completion": usage.completion_tokens,
                "cached": usage.cached_tokens,
                "reasoning": usage.reasoning_tokens,
                "estimated": usage.estimated,
                "latency_ms": step.latency_ms,
                "ttft_ms": step.ttft_ms,
                "tool_ms": step.tool_ms if tools else None,  # no tool called: "—", not "0 ms"
                "cost": step.cost(metrics.prices),
                "error": step_problem(step),
                "tools": tools,
            }
        )
    return rows


def filter_rows(rows: Sequence[dict[str, Any]], *, errors_only: bool, tools: Sequence[str]) -> list[dict[str, Any]]:
    """The rows with an error (when ``errors_only``) that called one of ``tools`` (when any are given)."""
    return [
        row
        for row in rows
        if (not errors_only or row["error"]) and (not tools or any(tool in row["tools"] for tool in tools))
    ]


def inspect_key(run_id: str) -> str:
    """Session-state key of the step the Inspector shows for a run."""
    return f"inspect_{run_id}"


def _select_from_table(table_key: str, run_id: str, steps_shown: list[int]) -> None:
    """A row (its checkbox) or any cell of it clicked in the table opens that step in the Inspector."""
    selection = st.session_state[table_key].selection
    rows = list(selection.rows) or [cell[0] for cell in getattr(selection, "cells", [])]
    if rows and rows[0] < len(steps_shown):
        choose(inspect_key(run_id), steps_shown[rows[0]])


STEP_COLUMNS = (
    "step",
    "action",
    "error",
    "latency_ms",
    "ttft_ms",
    "tool_ms",
    "prompt",
    "completion",
    "cached",
    "reasoning",
    "estimated",
    "cost",
    "thought",
)
"""The steps table's columns: the error beside the action and the figures before the free text, so a narrow
screen cuts off the end of a thought rather than a number."""
_ONLY_WHEN_SET = ("error", "estimated", "cached", "reasoning")
"""Columns left out when no row has a value in them (most runs have no error and no estimated tokens)."""


def step_columns(rows: list[dict[str, Any]]) -> list[str]:
    """The columns the table shows for ``rows``."""
    return [c for c in STEP_COLUMNS if c not in _ONLY_WHEN_SET or any(row.get(c) for row in rows)]


def steps_table(metrics: RunMetrics, turn: TurnView) -> None:
    """The run's steps in a table you can sort (click a header), filter (errors only, by tool) and click."""
    rows = step_rows(metrics, turn)
    used = sorted({tool for row in rows for tool in row["tools"]})
    left, right = st.columns([1, 3], vertical_alignment="bottom")
    errors_only = left.toggle(t("traces.filter.errors"), key=f"errors_only_{turn.run_id}")
    tools = right.multiselect(
        t("traces.filter.tools"), used, key=f"tools_{turn.run_id}", placeholder=t("traces.filter.all_tools")
    )
    shown = filter_rows(rows, errors_only=errors_only, tools=tools)
    if not shown:
        st.caption(t("traces.filter.none"))
        return
    table_key = f"steps_{turn.run_id}"
    column = st.column_config
    st.dataframe(
        styled(
            [{k: v for k, v in row.items() if k != "tools"} for row in shown],
            {"latency_ms": DURATION_MS, "ttft_ms": DURATION_MS, "tool_ms": DURATION_MS, "cost": COST},
        ),
        key=table_key,
        on_select=functools.partial(_select_from_table, table_key, turn.run_id, [row["step"] for row in shown]),
        selection_mode=["single-row", "single-cell"],  # a click on a cell picks its row's step too
        hide_index=True,
        column_order=step_columns(rows),
        column_config={
            "step": column.NumberColumn(t("traces.col.step"), width="small"),
            "action": column.TextColumn(t("trace.action")),
            "thought": column.TextColumn(t("trace.thought"), width="large"),
            "prompt": column.NumberColumn(t("traces.col.prompt"), format="localized"),
            "completion": column.NumberColumn(t("traces.col.completion"), format="localized"),
            "cached": column.NumberColumn(t("traces.col.cached"), format="localized"),
            "reasoning": column.NumberColumn(t("traces.col.reasoning"), format="localized"),
            "estimated": column.CheckboxColumn(t("traces.col.estimated"), help=t("traces.tokens.estimated_help")),
            "latency_ms": column.NumberColumn(t("traces.col.latency")),
            "ttft_ms": column.NumberColumn(t("traces.col.ttft")),
            "tool_ms": column.NumberColumn(t("traces.col.tool_time")),
            "cost": column.NumberColumn(t("traces.col.cost"), help=t("traces.col.cost_help")),
            "error": column.TextColumn(t("traces.col.error"), width="medium"),
        },
    )
    st.caption(t("traces.table.hint"))


# ── the Inspector ────────────────────────────────────────────────────────────────────────────────


def pick_step(turn: TurnView) -> StepView | None:
    """A selectbox of the run's steps (a click in the table also picks one); None when the run has none."""
    if not turn.steps:
        return None
    by_number = {s.number: s for s in turn.steps}

    def label(number: int) -> str:
        """``Step 2 · calculator ⚠``."""
        step = by_number[number]
        what = ", ".join(a.tool for a in step.actions) or (t("trace.answer") if step.final_answer is not None else "")
        flag = " ⚠" if step.has_error else ""
        return " · ".join(x for x in (t("trace.step", n=number), what) if x) + flag

    number = translated_selectbox(
        t("traces.inspect.step"),
        list(by_number),
        key=inspect_key(turn.run_id),
        default=turn.steps[0].number,
        format_func=label,
    )
    return by_number[number]


def model_calls(step: StepView) -> list[ModelFinished]:
    """The model calls recorded for a step (more than one when it was redone after a resume), with full requests."""
    return [
        replace(r.event, messages=r.messages(), messages_kept=0) if r.event.messages_kept else r.event
        for r in step.requests
    ]


def inspect_step(step: StepView, prices: PriceTable) -> None:
    """Messages sent, raw output, parsed reply and observations of one step, in tabs; every text copyable."""
    calls = model_calls(step)
    call = calls[-1] if calls else None
    numbers = render.step_numbers(step, prices)
    st.markdown(f"**{t('trace.step', n=step.number)}**" + (f" · {numbers}" if numbers else ""))
    if len(calls) > 1:
        st.caption(t("traces.inspect.attempts", count=len(calls)))
    if call is None:
        st.info(t("traces.inspect.no_reply"))
        return
    messages, output, parsed, observed = st.tabs(
        [
            t("traces.inspect.messages", count=len(call.messages)),
            t("trace.raw"),
            t("traces.inspect.parsed"),
            t("traces.inspect.observations", count=len(step.actions)),
        ]
    )
    with messages:
        sent_messages(call)
    with output:
        raw_output(call)
    with parsed:
        parsed_reply(call)
    with observed:
        observations(step.actions)


def sent_messages(call: ModelFinished) -> None:
    """The exact messages of the request, one block each, and all of them as JSON."""
    if not call.messages:
        st.caption(t("traces.inspect.no_messages"))
        return
    st.caption(t("traces.inspect.messages_help", model=call.model or "—"))
    with st.expander(t("traces.inspect.as_json"), icon=":material/data_object:"):
        st.code(_json(list(call.messages)), language="json", height=_height(len(call.messages) * 400))
    for number, message in enumerate(call.messages, start=1):
        role = str(message.get("role", "?"))
        st.markdown(f"**{number}.** `{neutralize(role)}`")
        content = message.get("content")
        text = content if isinstance(content, str) else _json(content) if content is not None else ""
        if text:
            st.code(text, language=None, wrap_lines=True, height=_height(len(text)))
        extra = {k: v for k, v in message.items() if k not in ("role", "content")}
        if extra:
            st.code(_json(extra), language="json", wrap_lines=True)


def raw_output(call: ModelFinished) -> None:
    """The model's text exactly as written, its reasoning, and the call's figures."""
    if call.error:
        _problem(t("trace.model_error", error=""), call.error)
    if call.reasoning:
        st.markdown(f"**{t('trace.reasoning')}**")
        st.code(call.reasoning, language=None, wrap_lines=True, height=_height(len(call.reasoning)))
    st.code(call.text or "", language=None, wrap_lines=True, height=_height(len(call.text)))
    usage = call.usage
    facts = [
        f"{call.model or '—'}",
        render.usage_text(usage),
        f"{t('traces.col.latency')} {format_duration(call.latency_ms)}",
        f"{t('traces.col.ttft')} {format_duration(call.ttft_ms)}",
        f"finish_reason: {call.finish_reason or '—'}",
    ]
    if call.retried_after:
        facts.append(t("chip.model_retry", what=", ".join(call.retried_after)))
    st.caption(neutralize(" · ".join(facts)))


def parsed_reply(call: ModelFinished) -> None:
    """The Thought, the requested actions with their arguments, or the final answer, as Sparrow understood them."""
    if call.format_error:
        _problem(t("trace.format_error", error=""), call.format_error)
    if call.thought:
        st.markdown(f"**{t('trace.thought')}**")
        st.code(call.thought, language=None, wrap_lines=True, height=_height(len(call.thought)))
    for request in call.tool_calls:
        name, ident = neutralize(str(request.get("name", "?"))), neutralize(str(request.get("id", "")))
        st.markdown(f"**{t('trace.action')}** `{name}` · `{ident}`")
        st.code(_pretty_arguments(request.get("arguments")), language="json", wrap_lines=True)
    if call.final_answer is not None:
        st.markdown(f"**{t('trace.answer')}**")
        st.code(call.final_answer, language=None, wrap_lines=True, height=_height(len(call.final_answer)))
    if not (call.thought or call.tool_calls or call.final_answer is not None or call.format_error):
        st.caption(t("traces.inspect.nothing_parsed"))


def observations(actions: Sequence[ActionView]) -> None:
    """Each tool call's arguments, observation (what the model saw), error and details (what the UI shows)."""
    if not actions:
        st.caption(t("traces.inspect.no_tools"))
        return
    for action in actions:
        duration = t("trace.running") if action.running else format_duration(action.duration_ms)
        st.markdown(f"**{t('trace.action')}** `{neutralize(action.tool)}` · {duration}")
        st.code(_json(action.arguments), language="json", wrap_lines=True)
        if action.error:
            _problem(t("trace.tool_error", error=""), action.error)
        if action.running:
            continue
        note = f" {t('trace.truncated')}" if action.truncated else ""
        st.markdown(f"**{t('trace.observation')}**{note}")
        output = action.output or ""
        st.code(output, language=None, wrap_lines=True, height=_height(len(output)))
        if action.details is not None:
            with st.expander(t("traces.inspect.details"), icon=":material/info:"):
                st.code(_json(action.details), language="json", wrap_lines=True)


def _problem(label: str, text: str) -> None:
    """An error: a red label, and the text itself shown literally (it comes from a model or a tool)."""
    st.error(label.rstrip(": ："), icon=":material/error:")
    st.code(text, language=None, wrap_lines=True)


def _pretty_arguments(raw: Any) -> str:
    """Tool arguments as indented JSON when they parse, else exactly as the model wrote them."""
    if not isinstance(raw, str):
        return _json(raw)
    try:
        return _json(json.loads(raw))
    except json.JSONDecodeError:
        return raw


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2, default=str)


def _height(length: int) -> int | Literal["content"]:
    return 320 if length > LONG_TEXT else "content"
