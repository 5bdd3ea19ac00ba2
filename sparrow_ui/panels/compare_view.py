"""The Compare page's parts: which two turns, their figures, and "Run again with…" streamed beside the original.

Each side is ``SESSION:RUN`` in the URL (``?left=…&right=…``), so a comparison can be shared. The diff
itself is :mod:`agent_core.views.compare`, drawn by :mod:`sparrow_ui.panels.compare_steps`; no text from a run is
read
as markdown.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from typing import Any

import streamlit as st

from agent_core.engine.protocols import PROTOCOLS
from agent_core.engine.run_context import AgentSettings
from agent_core.events import Event, ModelFinished, RunFinished, StepStarted, ToolFinished
from agent_core.guards.untrusted import neutralize
from agent_core.models import ModelError
from agent_core.runtime.rerun import rerun_turn
from agent_core.store import SessionInfo, SessionNotFound, SessionStore
from agent_core.tools import Tool
from agent_core.views.compare import Comparison, compare_turns
from agent_core.views.metrics import turn_metrics
from agent_core.views.transcript import Transcript
from agent_core.views.turns import TurnView
from sparrow_ui.shell.session_view import prices, session_view
from sparrow_ui.shell.state import ModelConfig, available_tools
from sparrow_ui.steps import renderer as render
from sparrow_ui.translations.i18n import t
from sparrow_ui.translations.strings_demo import td
from sparrow_ui.translations.strings_whatif import tw

SIDES = ("left", "right")
"""The query parameters holding each side as ``SESSION:RUN``."""


def turn_ref(session_id: str, run_id: str) -> str:
    """How a turn is named in the URL."""
    return f"{session_id}:{run_id}"


def compare_button(session_id: str, run_id: str, *, key: str = "compare_open") -> None:
    """Open the Compare page with this turn on the left."""
    if st.button(td("compare.open"), icon=":material/compare_arrows:", key=key, width="stretch"):
        st.switch_page("pages/compare.py", query_params={"left": turn_ref(session_id, run_id)})


def pick_turn(
    sessions: Sequence[SessionInfo], store: SessionStore, side: str, default: str | None = None
) -> TurnView | None:
    """A session and one of its turns for ``side``, kept in the URL (else ``default``); None without a turn.

    The pickers follow the URL when it changes under them (a rerun or a fork puts its new session there).
    """
    wanted = st.query_params.get(side) or default or ""
    wanted_session, _, wanted_run = wanted.partition(":")
    ids = [s.id for s in sessions]
    titles = {s.id: neutralize(f"{s.title} · {s.id[-6:]}") for s in sessions}
    key = f"compare_{side}_session"
    moved = st.session_state.get(f"{key}_url") != wanted  # a rerun, a fork or a link changed the URL
    if key not in st.session_state or st.session_state[key] not in ids or (moved and wanted_session in ids):
        st.session_state[key] = wanted_session if wanted_session in ids else ids[0]
    session_id = st.selectbox(td("compare.session"), ids, format_func=titles.__getitem__, key=key)
    turns = session_view(store, session_id).transcript.turns
    if not turns:
        st.caption(td("compare.need_turns"))
        return None
    runs = [t.run_id for t in turns]
    labels = {t.run_id: neutralize(f"{n}. {t.question[:80]}") for n, t in enumerate(turns, start=1)}
    run_key = f"compare_{side}_run_{session_id}"
    if run_key not in st.session_state or st.session_state[run_key] not in runs or (moved and wanted_run in runs):
        st.session_state[run_key] = wanted_run if wanted_run in runs else runs[-1]
    run_id = st.selectbox(td("compare.turn"), runs, format_func=labels.__getitem__, key=run_key)
    st.query_params[side] = st.session_state[f"{key}_url"] = turn_ref(session_id, run_id)
    return turns[runs.index(run_id)]


def other_turn(store: SessionStore, sessions: Sequence[SessionInfo], left: str) -> str | None:
    """A turn to compare ``left`` (``SESSION:RUN``) with that is not itself: its original if it is a fork,
    else its newest branch, else another turn of its session, else the newest other session's last turn."""
    session_id, _, run_id = left.partition(":")
    try:
        turns = session_view(store, session_id).transcript.turns
    except SessionNotFound:
        return None
    own = next((t for t in turns if t.run_id == run_id), turns[-1] if turns else None)
    if own is not None and own.forked is not None:
        return turn_ref(own.forked.from_session, own.forked.from_run)
    children = [s for s in sessions if s.parent_id == session_id]
    others = [t for t in turns if own is None or t.run_id != own.run_id]
    candidates = [*children, *(s for s in sessions if s.id != session_id and s.parent_id != session_id)]
    if others and not children:
        return turn_ref(session_id, others[-1].run_id)
    for info in candidates:
        last = Transcript.from_events(store.log.events(info.id)).run()
        if last is not None:
            return turn_ref(info.id, last.run_id)
    return None


def comparison_of(left: TurnView, right: TurnView) -> Comparison:
    """The comparison of two turns, with the app's prices."""
    table = prices()
    return compare_turns(left, right, turn_metrics(left, prices=table), turn_metrics(right, prices=table))


def protocol_name(protocol: str) -> str:
    """The one name of a protocol on every screen (the sidebar's): ``ReAct text``, ``Native tools``, ``JSON schema``."""
    return t(f"agent.protocol.{protocol}") if protocol in PROTOCOLS else protocol


def metrics_table(comparison: Comparison) -> None:
    """The two runs' figures, the differences first-class: a Δ column and a ≠ mark."""
    metric, left, right = td("compare.col.metric"), td("compare.col.left"), td("compare.col.right")
    rows = [
        {
            "": "≠" if r.differs else "",
            metric: td(f"compare.metric.{r.name}"),
            left: protocol_name(r.left) if r.name == "protocol" else r.left,
            right: protocol_name(r.right) if r.name == "protocol" else r.right,
            "Δ": r.delta,
        }
        for r in comparison.metrics
    ]
    st.table(rows)


def rerun_form(store: SessionStore, config: ModelConfig, session_id: str, turn: TurnView, beside: Any) -> None:
    """Ask the left turn's question again with another protocol, model or temperature, streamed into ``beside``."""
    with st.expander(td("compare.rerun"), icon=":material/replay:"):
        st.caption(td("compare.rerun_help"))
        choices = list(PROTOCOLS)
        other = next((p for p in choices if p != turn.protocol), choices[0])  # default: a different protocol
        protocol = st.radio(td("compare.protocol"), choices, horizontal=True, key="rerun_protocol",
                            index=choices.index(other), format_func=protocol_name)  # fmt: skip
        model = st.text_input(td("compare.model"), value=config.run.model, key="rerun_model", max_chars=200)
        before = turn.run_started.settings.get("temperature") if turn.run_started else None
        start = (
            float(before)
            if isinstance(before, (int, float)) and 0 <= before <= 1.5
            else (config.run.agent.temperature or 0.0)
        )
        temperature = st.slider(td("compare.temperature"), 0.0, 1.5, start, 0.1, key="rerun_temperature")
        if not config.configured:
            st.caption(td("compare.rerun_needs_model"))
        if st.button(td("compare.rerun_go"), key="rerun_go", type="primary", disabled=not config.configured):
            chosen = (protocol, model.strip() or config.run.model, temperature)
            _rerun(store, config, session_id, turn, chosen, beside)


def same_tools(turn: TurnView) -> list[Tool]:
    """The tools the turn's run had, those this app still knows (a rerun changes one thing, not the tools)."""
    known = available_tools()
    offered = turn.run_started.tools if turn.run_started else ()
    names = [spec.get("function", {}).get("name") for spec in offered if isinstance(spec, dict)]
    return [known[name] for name in names if name in known]


def _rerun(
    store: SessionStore,
    config: ModelConfig,
    session_id: str,
    turn: TurnView,
    chosen: tuple[str, str, float],
    beside: Any,
) -> None:
    protocol, model, temperature = chosen
    original = AgentSettings.from_record(turn.run_started.settings if turn.run_started else {})
    settings = dataclasses.replace(original, temperature=temperature)  # the turn's own settings, one changed
    try:
        chat = config.with_model(model).chat_model()
        fork, events = rerun_turn(
            store, session_id, turn.run_id, chat, same_tools(turn), protocol=protocol, settings=settings
        )
        last = stream_beside(beside, events)
    except (ModelError, KeyError) as exc:
        st.error(str(exc))
        return
    open_pair(turn_ref(session_id, turn.run_id), turn_ref(fork.id, last))


def stream_beside(place: Any, events: Iterable[Event]) -> str:
    """Draw a run's steps in ``place`` as its events come (the same renderer as the Chat's trace); its run id."""
    transcript, run_id = Transcript(), ""
    with place:
        st.caption(f":material/autorenew: {tw('diff.streaming')}")
        live = st.empty()
    for event in events:
        transcript.add(event)
        run_id = event.run_id
        if isinstance(event, (StepStarted, ModelFinished, ToolFinished, RunFinished)):
            shown = transcript.run(run_id)
            if shown is not None:
                with live.container():
                    render.steps(shown, prices(), live=not isinstance(event, RunFinished))
    return run_id


def open_pair(left: str, right: str) -> None:
    """Show ``left`` against ``right`` on the Compare page (the pickers follow)."""
    st.query_params["left"], st.query_params["right"] = left, right
    st.rerun()
