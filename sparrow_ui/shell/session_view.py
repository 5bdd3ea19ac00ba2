"""A session's events folded into turns and metrics once per browser tab, extended by the events stored since."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import streamlit as st

from agent_core.engine.state import RunState
from agent_core.events import Event
from agent_core.models.pricing import DEFAULT_TABLE, PriceTable, PricingError, prices_from_env
from agent_core.runtime.sessions import ActiveRun
from agent_core.store import SessionInfo, SessionNotFound, SessionStore
from agent_core.store.log import gc_paused
from agent_core.views.metrics import RunMetrics, SessionMetrics, runs_metrics, turn_metrics
from agent_core.views.transcript import Transcript
from sparrow_ui.translations.i18n import t

_VIEWS, _LIVE_FOLD = "_session_views", "_live_fold"
"""Where a browser tab keeps its session views (by session id) and its live turn's fold."""
KEPT_VIEWS = 4
"""Session views a tab keeps (Compare shows two sessions; Chat and Traces one): the least recently used goes."""


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
    """Everything the pages draw for one session: its events folded once, and extended as new ones are stored."""

    info: SessionInfo | None
    events: list[Event] = field(default_factory=list)
    transcript: Transcript = field(default_factory=Transcript)
    run_metrics: dict[str, RunMetrics] = field(default_factory=dict)
    """Each run's metrics, computed again only when its events change."""
    seq: int = 0
    """The sequence number of the last event folded in (0: none yet)."""
    prices: PriceTable = DEFAULT_TABLE
    _sums: dict[tuple[int, ...], SessionMetrics] = field(default_factory=dict, repr=False)
    """Session totals by the identities of the run metrics they summed (the whole session, or its finished turns)."""

    def fold(self, stored: list[tuple[int, Event]], prices: PriceTable) -> None:
        """Fold events stored after ``seq`` in: the turns they touch get new metrics, the others keep theirs."""
        new = [event for _, event in stored]
        self.events.extend(new)
        self.transcript.extend(new)
        self.seq, self.prices = stored[-1][0], prices
        touched = {event.run_id for event in new}
        for turn in self.transcript.runs:
            if turn.run_id in touched or turn.run_id not in self.run_metrics:
                self.run_metrics[turn.run_id] = turn_metrics(turn, prices=prices)

    @property
    def metrics(self) -> SessionMetrics | None:
        """The session's metrics (None before its first event)."""
        return self.totals(self.transcript.runs)

    def totals(self, turns: Sequence[RunState]) -> SessionMetrics | None:
        """The metrics of these runs of the session together, summed again only when one of them changed."""
        if not turns:
            return None
        key = tuple(id(self.run_metrics.get(turn.run_id)) for turn in turns)  # a changed run has new metrics
        if key not in self._sums:
            if len(self._sums) > 1:
                self._sums.clear()
            self._sums[key] = runs_metrics(turns, prices=self.prices, per_run=self.run_metrics)
        return self._sums[key]


def session_view(store: SessionStore, session_id: str | None) -> SessionView:
    """The stored state of ``session_id``, kept per browser tab: only events stored since the last call are read.

    The log is append-only, so the view of the last call is extended with the events numbered after its last
    one (none read when the session's last sequence number has not moved; a rename only refreshes ``info``).
    """
    if session_id is None:
        return SessionView(None)
    info = store.sessions.get(session_id)  # raises SessionNotFound
    key = (session_id, info.created_at, store.actor)
    views: dict[str, tuple[object, SessionView]] = st.session_state.setdefault(_VIEWS, {})
    cached = views.pop(session_id, None)
    view: SessionView = cached[1] if cached is not None and cached[0] == key else SessionView(info)
    if view.seq > info.last_seq:  # not this log (a session deleted and made again): fold it afresh
        view = SessionView(info)
    if view.seq < info.last_seq or not view.seq:
        with gc_paused():
            stored = store.runs.events_after(session_id, view.seq)
        if stored:  # a run may have started between the two reads: the title it gave the session comes with it
            info = store.sessions.get(session_id)
            view.fold(stored, prices())
    view.info = info
    views[session_id] = (key, view)
    while len(views) > KEPT_VIEWS:
        views.pop(next(iter(views)))
    return view


@dataclass(eq=False)
class LiveFold:
    """A session's turns with a live run's events (deltas included) in place of its stored ones, each folded once.

    Kept per browser tab while the run goes: a page run and each redraw fold only the events that came since.
    """

    live: ActiveRun
    stored: Transcript
    """The session view's transcript it was made from (its other turns are shared, not folded again)."""
    others: int
    """How many of the stored transcript's runs are not the live one (a new one means: make it again)."""
    transcript: Transcript
    seen: int = 0
    """How many of ``live.events`` are folded in."""

    def add(self, new: Sequence[Event]) -> None:
        """Fold the live run's next events (those after ``seen``)."""
        for event in new:
            self.transcript.add(event)
            self.seen += 1

    def catch_up(self) -> None:
        """Fold the live run's events that arrived since the last call."""
        self.add(self.live.events[self.seen :])


def with_live(view: SessionView, live: ActiveRun) -> LiveFold:
    """The turns with the live run's events in place of its stored ones, caught up with the run.

    Follow the run from ``seen`` on: events arriving meanwhile are then neither lost nor drawn twice.
    """
    others = sum(turn.run_id != live.run_id for turn in view.transcript.runs)
    fold: LiveFold | None = st.session_state.get(_LIVE_FOLD)
    if fold is None or fold.live is not live or fold.stored is not view.transcript or fold.others != others:
        fold = LiveFold(live, view.transcript, others, view.transcript.without(live.run_id))
        fold.transcript.extend(live.base)
        st.session_state[_LIVE_FOLD] = fold
    fold.catch_up()
    return fold


__all__ = ["LiveFold", "SessionNotFound", "SessionView", "prices", "session_view", "with_live"]
