"""A session's events folded into turns and metrics, cached per browser tab until the session changes."""

from __future__ import annotations

from dataclasses import dataclass, field

import streamlit as st

from agent_core.events import Event
from agent_core.models.pricing import DEFAULT_TABLE, PriceTable, PricingError, prices_from_env
from agent_core.runtime.live_runs import ActiveRun
from agent_core.store import SessionInfo, SessionNotFound, SessionStore
from agent_core.views.metrics import RunMetrics, SessionMetrics, session_metrics
from agent_core.views.transcript import Transcript
from sparrow_ui.translations.i18n import t


@st.cache_resource(show_spinner=False)
def _table() -> tuple[PriceTable, str | None]:
    try:
        return prices_from_env(), None
    except PricingError as exc:
        return DEFAULT_TABLE, str(exc)


def prices() -> PriceTable:
    """Model prices (the catalogue, overridden by $SPARROW_PRICES); each run is priced at the endpoint it
    recorded (``PriceTable.for_run``, applied by the metrics and the step headers), never here.

    A malformed $SPARROW_PRICES is said once per browser session (a toast) and the catalogue is used alone.
    """
    table, problem = _table()
    if problem is not None and not st.session_state.get("_prices_problem_told"):
        st.session_state["_prices_problem_told"] = True
        st.toast(t("prices.ignored", problem=problem.rstrip(".")), icon=":material/warning:")
    return table


@dataclass
class SessionView:
    """Everything the pages draw for one session."""

    info: SessionInfo | None
    events: list[Event] = field(default_factory=list)
    transcript: Transcript = field(default_factory=Transcript)
    metrics: SessionMetrics | None = None
    run_metrics: dict[str, RunMetrics] = field(default_factory=dict)


def session_view(store: SessionStore, session_id: str | None) -> SessionView:
    """The stored state of ``session_id``; recomputed only when its last event changed."""
    if session_id is None:
        return SessionView(None)
    info = store.get_session(session_id)  # raises SessionNotFound
    key = (session_id, info.last_seq, info.updated_at)
    cached = st.session_state.get("_session_view")
    if cached is not None and cached[0] == key:
        view: SessionView = cached[1]
        view.info = info
        return view
    events = store.events(session_id)
    if events:  # a run may have started between the two reads: the title it gave the session comes with its events
        info = store.get_session(session_id)
    metrics = session_metrics(events, prices=prices()) if events else None
    view = SessionView(
        info,
        events,
        Transcript.from_events(events),
        metrics,
        {m.run_id: m for m in metrics.runs} if metrics else {},
    )
    st.session_state["_session_view"] = (key, view)  # keyed by the first read: events newer than it are read again
    return view


def with_live(view: SessionView, live: ActiveRun) -> tuple[Transcript, int]:
    """The turns with the live run's events (deltas included) in place of its stored ones, and how many were used.

    Follow the run from that count on: events arriving meanwhile are then neither lost nor drawn twice.
    """
    seen = list(live.events)
    transcript = Transcript.from_events(e for e in view.events if e.run_id != live.run_id)
    transcript.extend(live.base)
    transcript.extend(seen)
    return transcript, len(seen)


__all__ = ["SessionNotFound", "SessionView", "prices", "session_view", "with_live"]
