"""Which session and run the Traces page shows, and the session overview: every run with its figures."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import streamlit as st

from agent_core.engine.state import RunState
from agent_core.formatting import clip, format_cost, format_duration, format_timestamp, format_tokens
from agent_core.store import SessionInfo
from agent_core.views.metrics import RunMetrics, SessionMetrics
from sparrow_ui.elements.table_cells import COST, seconds, styled
from sparrow_ui.elements.widgets import translated_selectbox
from sparrow_ui.shell.session_view import SessionView
from sparrow_ui.shell.state import open_session, select_turn, selected_turn
from sparrow_ui.translations.i18n import status_label, t

SESSION_KEY = "traces_session"
RUN_KEY = "traces_run"
"""USD with enough digits for a single cheap call; an unknown price is left blank."""


def pick_session(sessions: Sequence[SessionInfo], open_id: str | None) -> str:
    """A selectbox of the sessions showing the open one (else the most recently updated); a pick opens it."""
    ids = [s.id for s in sessions]
    titles = {
        s.id: f"{s.title} · {format_timestamp(s.updated_at)} · {s.id[-6:]}" for s in sessions
    }  # labels must be unique
    st.session_state[SESSION_KEY] = open_id if open_id in ids else ids[0]
    chosen: str = st.selectbox(
        t("traces.session"), ids, key=SESSION_KEY, format_func=titles.__getitem__, on_change=_open_pick
    )
    if chosen != open_id:
        open_session(chosen)
    return chosen


def _open_pick() -> None:
    """Open the picked session, as every other way of opening one does."""
    open_session(st.session_state[SESSION_KEY])


TABS_KEY = "traces_tab"
"""The Traces page's tabs (run, session, replay)."""
REPLAY_TAB = 2


def show_replay_of(run_id: str) -> None:
    """Open the Traces page next on this run's Replay tab."""
    select_turn(run_id)
    st.session_state[f"_{TABS_KEY}_index"] = REPLAY_TAB
    st.session_state.pop(TABS_KEY, None)


def lazy_tabs(labels: Sequence[str], key: str) -> Sequence[Any]:
    """Tabs that draw only the open one, and stay open when the language (hence every label) changes."""
    index_key = f"_{key}_index"

    def remember() -> None:
        """Keep the open tab's position, which does not change with the language."""
        if st.session_state.get(key) in labels:
            st.session_state[index_key] = list(labels).index(st.session_state[key])

    open_at: int = min(st.session_state.get(index_key, 0), len(labels) - 1)
    default = labels[open_at]
    return st.tabs(list(labels), key=key, default=default, on_change=remember)


def run_status(turn: RunState, live_run_id: str | None) -> str:
    """The run's status in words; a run without an end is running (here or elsewhere) or was interrupted."""
    if turn.status is not None:
        return status_label(turn.status)
    return t("trace.running") if turn.run_id == live_run_id else t("traces.status.interrupted")


def pick_run(turns: Sequence[RunState], live_run_id: str | None) -> RunState:
    """A selectbox of the session's runs (turns); defaults to the one chosen on the Chat page, else the last."""
    by_id = {turn.run_id: (number, turn) for number, turn in enumerate(turns, start=1)}

    def label(run_id: str) -> str:
        """``Turn 2 · question · status``."""
        number, turn = by_id[run_id]
        return (
            f"{t('trace.turn', n=number)} · {clip(turn.question, 70, one_line=True)} · {run_status(turn, live_run_id)}"
        )

    # The Chat page's choice and this picker are one: the selected turn (state.py).
    default = selected_turn(turns) or turns[-1]
    st.session_state[RUN_KEY] = default.run_id
    chosen = translated_selectbox(
        t("traces.run"), list(by_id), key=RUN_KEY, default=default.run_id, format_func=label, on_pick=select_turn
    )
    return by_id[chosen][1]


def run_rows(view: SessionView, live_run_id: str | None) -> list[dict[str, Any]]:
    """One row per run of the session, for the overview table."""
    rows = []
    for number, turn in enumerate(view.transcript.turns, start=1):
        metrics = view.run_metrics.get(turn.run_id)
        rows.append(
            {"turn": number, "question": turn.question, "status": run_status(turn, live_run_id)} | _figures(metrics)
        )
    return rows


def _figures(m: RunMetrics | None) -> dict[str, Any]:
    if m is None:
        return {}
    return {
        "steps": m.steps,
        "tool_calls": m.tool_calls,
        "errors": m.tool_errors + m.format_errors + m.model_errors,
        "tokens": m.usage.total_tokens,
        "estimated": m.usage.estimated,
        "cost": m.cost,
        "seconds": m.duration_ms / 1000,
        "started": format_timestamp(m.started_at),
    }


def session_summary(metrics: SessionMetrics) -> None:
    """Turns, steps, tool calls, errors, tokens, cost and working time of the whole session."""
    usage = metrics.usage
    cells = [
        (t("traces.col.turns"), str(len(metrics.runs))),
        (t("traces.col.steps"), str(metrics.steps)),
        (t("traces.col.tool_calls"), str(metrics.tool_calls)),
        (t("traces.col.errors"), str(metrics.tool_errors + metrics.format_errors + metrics.model_errors)),
        (t("traces.col.tokens"), format_tokens(usage.total_tokens, estimated=usage.estimated)),
        (t("traces.col.cost"), format_cost(metrics.cost, estimated=usage.estimated)),
        (t("traces.col.duration"), format_duration(metrics.duration_ms)),
    ]
    row = st.container(horizontal=True, gap="large")
    for label, value in cells:
        row.metric(label, value, width="content")


def session_table(view: SessionView, live_run_id: str | None) -> None:
    """Every run of the session with status, steps, tokens, cost and duration."""
    column = st.column_config
    st.dataframe(
        styled(run_rows(view, live_run_id), {"cost": COST, "seconds": seconds}),
        hide_index=True,
        column_config={
            "turn": column.NumberColumn("#", width="small"),
            "question": column.TextColumn(t("traces.col.question"), width="medium"),
            "status": column.TextColumn(t("traces.col.status")),
            "steps": column.NumberColumn(t("traces.col.steps")),
            "tool_calls": column.NumberColumn(t("traces.col.tool_calls")),
            "errors": column.NumberColumn(t("traces.col.errors")),
            "tokens": column.NumberColumn(t("traces.col.tokens"), format="localized"),
            "estimated": column.CheckboxColumn(t("traces.col.estimated"), help=t("traces.tokens.estimated_help")),
            "cost": column.NumberColumn(t("traces.col.cost"), help=t("traces.col.cost_help")),
            "seconds": column.NumberColumn(t("traces.col.duration")),
            "started": column.TextColumn(t("traces.col.started")),
        },
    )
