"""The Compare page: two turns of any sessions side by side, and "Run again with…" another model or protocol.

Each side is ``SESSION:RUN`` in the URL (``?left=…&right=…``), so a comparison can be shared. The diff
itself is :mod:`agent_core.compare`; every text from a run is shown as code or plain caption, never as
markdown.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence

import streamlit as st

from agent_core.compare import CallDiff, Comparison, StepPair, compare_turns
from agent_core.metrics import turn_metrics
from agent_core.models import ModelError
from agent_core.protocols import PROTOCOLS
from agent_core.rerun import rerun_turn
from agent_core.sessions import settings_from_config
from agent_core.store import SessionInfo, SessionStore
from agent_core.tools import Tool
from agent_core.transcript import Transcript
from agent_core.turns import StepView, TurnView
from agent_core.untrusted import neutralize, plain
from sparrow_ui.session_view import prices
from sparrow_ui.state import ModelConfig, available_tools
from sparrow_ui.strings_demo import td

SIDES = ("left", "right")
"""The query parameters holding each side as ``SESSION:RUN``."""


def turn_ref(session_id: str, run_id: str) -> str:
    """How a turn is named in the URL."""
    return f"{session_id}:{run_id}"


def compare_button(session_id: str, run_id: str, *, key: str = "compare_open") -> None:
    """Open the Compare page with this turn on the left."""
    if st.button(td("compare.open"), icon=":material/compare_arrows:", key=key, width="stretch"):
        st.switch_page("pages/compare.py", query_params={"left": turn_ref(session_id, run_id)})


def pick_turn(sessions: Sequence[SessionInfo], store: SessionStore, side: str) -> TurnView | None:
    """A session and one of its turns for ``side``, kept in the URL; None when the session has no turn."""
    wanted_session, _, wanted_run = (st.query_params.get(side) or "").partition(":")
    ids = [s.id for s in sessions]
    titles = {s.id: neutralize(f"{s.title} · {s.id[-6:]}") for s in sessions}
    index = ids.index(wanted_session) if wanted_session in ids else 0
    session_id = st.selectbox(
        td("compare.session"), ids, index=index, format_func=titles.__getitem__, key=f"compare_{side}_session"
    )
    turns = Transcript.from_events(store.events(session_id)).turns
    if not turns:
        st.caption(td("compare.need_turns"))
        return None
    runs = [t.run_id for t in turns]
    labels = {t.run_id: neutralize(f"{n}. {t.question[:80]}") for n, t in enumerate(turns, start=1)}
    default = runs.index(wanted_run) if wanted_run in runs else len(runs) - 1
    run_id = st.selectbox(
        td("compare.turn"), runs, index=default, format_func=labels.__getitem__, key=f"compare_{side}_run_{session_id}"
    )
    st.query_params[side] = turn_ref(session_id, run_id)
    return turns[runs.index(run_id)]


def comparison_of(left: TurnView, right: TurnView) -> Comparison:
    """The comparison of two turns, with the app's prices."""
    table = prices()
    return compare_turns(left, right, turn_metrics(left, prices=table), turn_metrics(right, prices=table))


def metrics_table(comparison: Comparison) -> None:
    """The two runs' figures, the differences first-class: a Δ column and a ≠ mark."""
    metric, left, right = td("compare.col.metric"), td("compare.col.left"), td("compare.col.right")
    rows = [
        {
            "": "≠" if r.differs else "",
            metric: td(f"compare.metric.{r.name}"),
            left: r.left,
            right: r.right,
            "Δ": r.delta,
        }
        for r in comparison.metrics
    ]
    st.table(rows)


def steps_view(comparison: Comparison) -> None:
    """Each aligned pair of steps in two columns; what differs is marked."""
    st.caption(td("compare.differing", count=comparison.differing_steps, total=len(comparison.steps)))
    for index, pair in enumerate(comparison.steps):
        left, right = st.columns(2, gap="medium")
        with left.container(border=True, key=f"compare_step_{index}_left"):
            _step(pair.left, pair, "left")
        with right.container(border=True, key=f"compare_step_{index}_right"):
            _step(pair.right, pair, "right")


def _step(step: StepView | None, pair: StepPair, side: str) -> None:
    if step is None:
        st.caption(f":orange[{td('compare.no_step')}]")
        return
    mark = ":orange[≠]" if pair.differs else ":green[=]"
    answered = step.final_answer is not None and not step.actions
    what = td("compare.answer") if answered else td("compare.calls", n=len(step.actions))
    st.markdown(f"{mark} **{td('compare.step', n=step.number)}** · {what}")
    if step.format_error or step.model_error:
        st.caption(":red[error]")
    for call in pair.calls:
        _call(call, side)
    if step.final_answer is not None:
        st.code(step.final_answer, language=None, wrap_lines=True)


def _call(call: CallDiff, side: str) -> None:
    action = call.left if side == "left" else call.right
    if action is None:
        st.caption(f":orange[{td('compare.no_step')}]")
        return
    changed = plain(", ".join(call.changed_arguments))
    label = f":orange[≠ **{plain(action.tool)}**]" if call.differs else f"**{plain(action.tool)}**"
    st.markdown(label + (f" · :orange[{changed}]" if changed else ""))
    st.code(json.dumps(action.arguments, ensure_ascii=False), language="json", wrap_lines=True)


def rerun_form(store: SessionStore, config: ModelConfig, session_id: str, turn: TurnView) -> None:
    """Ask the left turn's question again with another protocol, model or temperature, then compare."""
    with st.expander(td("compare.rerun"), icon=":material/replay:"):
        st.caption(td("compare.rerun_help"))
        choices = list(PROTOCOLS)
        other = next((p for p in choices if p != turn.protocol), choices[0])  # default: a different protocol
        protocol = st.radio(td("compare.protocol"), choices, horizontal=True, key="rerun_protocol",
                            index=choices.index(other))  # fmt: skip
        model = st.text_input(td("compare.model"), value=config.model, key="rerun_model", max_chars=200)
        before = turn.run_started.settings.get("temperature") if turn.run_started else None
        start = float(before) if isinstance(before, (int, float)) and 0 <= before <= 1.5 else config.temperature
        temperature = st.slider(td("compare.temperature"), 0.0, 1.5, start, 0.1, key="rerun_temperature")
        if not config.configured:
            st.caption(td("compare.rerun_needs_model"))
        if st.button(td("compare.rerun_go"), key="rerun_go", type="primary", disabled=not config.configured):
            _rerun(store, config, session_id, turn, protocol, model.strip() or config.model, temperature)


def same_tools(turn: TurnView) -> list[Tool]:
    """The tools the turn's run had, those this app still knows (a rerun changes one thing, not the tools)."""
    known = available_tools()
    offered = turn.run_started.tools if turn.run_started else ()
    names = [spec.get("function", {}).get("name") for spec in offered if isinstance(spec, dict)]
    return [known[name] for name in names if name in known]


def _rerun(
    store: SessionStore, config: ModelConfig, session_id: str, turn: TurnView, protocol: str, model: str, temp: float
) -> None:
    original = settings_from_config(turn.run_started.settings if turn.run_started else {})
    settings = dataclasses.replace(original, temperature=temp)  # the turn's own settings, one changed
    try:
        chat = dataclasses.replace(config, model=model).chat_model()
        with st.spinner(td("compare.rerun_running")):
            fork, events = rerun_turn(
                store, session_id, turn.run_id, chat, same_tools(turn), protocol=protocol, settings=settings
            )
            last = list(events)[-1]
    except (ModelError, KeyError) as exc:
        st.error(str(exc))
        return
    st.query_params["right"] = turn_ref(fork.id, last.run_id)
    st.session_state.pop("compare_right_session", None)  # the picker follows the URL again
    st.rerun()
