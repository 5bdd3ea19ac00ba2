"""Each event is folded once per browser tab: the session view grows with the log, a live turn with its run."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from streamlit.testing.v1 import AppTest

from agent_core.events import Event
from agent_core.guards.limits import CancelToken
from agent_core.runtime.sessions import LiveRun
from agent_core.store import SessionStore
from agent_core.store.sessions import record_events
from agent_core.testing import FakeOpenAIServer
from agent_core.views.metrics import runs_metrics, session_metrics
from agent_core.views.transcript import Transcript
from sparrow_ui.shell.session_view import prices, session_view, with_live
from sparrow_ui.shell.state import live_runs
from tests.app.test_chat_page import APP, TIMEOUT
from tests.observability.builders import calculator_run, failed_run
from tests.observability.test_fold_increments import POOL, shape


@pytest.fixture
def folded(monkeypatch: pytest.MonkeyPatch) -> list[Event]:
    """Every event folded into any transcript from now on, in order."""
    seen: list[Event] = []
    add = Transcript.add

    def counted(self: Transcript, event: Event) -> None:
        seen.append(event)
        add(self, event)

    monkeypatch.setattr(Transcript, "add", counted)
    return seen


def test_the_session_view_folds_only_what_was_stored_since(store: SessionStore, folded: list[Event]) -> None:
    session = store.sessions.create()
    store.log.append(session.id, calculator_run("r1"))
    view = session_view(store, session.id)
    assert len(folded) == len(calculator_run())
    assert session_view(store, session.id) is view and len(folded) == len(calculator_run())  # nothing new: no fold
    store.sessions.rename(session.id, "Renamed")
    assert session_view(store, session.id).info.title == "Renamed" and len(folded) == len(calculator_run())
    store.log.append(session.id, failed_run("r2"))
    view = session_view(store, session.id)
    assert folded[len(calculator_run()) :] == failed_run("r2")  # the new run's events, once each
    stored = store.log.events(session.id)
    assert view.events == stored and shape(view.transcript) == shape(Transcript.from_events(stored))
    assert view.metrics == session_metrics(stored, prices=prices())
    assert view.run_metrics == {m.run_id: m for m in view.metrics.runs}
    finished = [turn for turn in view.transcript.turns if turn.run_id != "r2"]  # the sidebar's, while r2 is live
    assert view.totals(finished) == runs_metrics(finished, prices=prices())
    assert view.totals(finished) is view.totals(finished) and view.metrics is view.metrics  # summed once
    other = store.sessions.create()
    store.log.append(other.id, calculator_run("o1"))
    session_view(store, other.id)  # Compare shows two sessions: going back and forth folds neither again
    before = len(folded)
    assert session_view(store, session.id) is view and session_view(store, other.id) and len(folded) == before


def _stream(events: list[Event], gate: list[int]) -> Iterator[Event]:
    """``events``, each let through once ``gate[0]`` allows it (the test moves a live run on step by step)."""
    for n, event in enumerate(events):
        while gate[0] <= n:
            time.sleep(0.01)
        yield event


def test_a_live_turn_is_the_stored_turns_with_its_run_folded_event_by_event(
    store: SessionStore, folded: list[Event]
) -> None:
    session = store.sessions.create()
    store.log.append(session.id, calculator_run("r1"))
    live_events = [e for e in POOL if e.run_id == "live"]
    gate = [len(live_events) // 2]
    recorded = record_events(store, session.id, _stream(live_events, gate))
    live = LiveRun(session.id, recorded, CancelToken(), run_id="live").start()
    while len(live.events) < gate[0]:
        live.wait(len(live.events), 0.05)
    view = session_view(store, session.id)
    before = len(folded)
    fold = with_live(view, live)
    assert folded[before:] == live.events  # the stored turns are shared, not folded again
    expected = [*calculator_run("r1"), *live.events]  # as folding the stored turns, then the live run, would
    assert shape(fold.transcript.turns) == shape(Transcript.from_events(expected).turns) and fold.seen == gate[0]
    half, gate[0] = gate[0], len(live_events)
    live.join(5)
    before = len(folded)
    assert with_live(session_view(store, session.id), live) is fold  # the next page run goes on with it
    rest = live.events[half:]
    # the session view folds the run's events stored since (no deltas), the live turn all of them: once each
    assert folded[before:] == [*(e for e in rest if e.type != "model_delta"), *rest] and fold.seen == len(live_events)
    assert shape(fold.transcript.turns) == shape(Transcript.from_events([*calculator_run("r1"), *live_events]).turns)


def test_a_redraw_of_a_live_turn_folds_only_its_new_events(
    store: SessionStore, fake_llm: FakeOpenAIServer, folded: list[Event]
) -> None:
    session = store.sessions.create()
    for n in range(20):
        store.log.append(session.id, calculator_run(f"r{n}"))
    app = AppTest.from_file(APP, default_timeout=TIMEOUT)
    app.query_params["session"] = session.id
    app.run()
    app.chat_input(key="question").set_value("Please fetch http://127.0.0.1:9/page").run()
    approve = next(b for b in app.button if b.key and b.key.startswith("approve_"))
    run = live_runs().get(session.id)
    assert run is not None
    seen_before, stored_before, before = len(run.events), store.sessions.get(session.id).last_seq, len(folded)
    approve.click().run()
    assert not app.exception and "The fetch tool said" in "\n".join(m.value for m in app.markdown)
    gained = len(run.events) - seen_before
    stored = store.sessions.get(session.id).last_seq - stored_before
    assert gained > 5
    # each new event folded into the live turn once and, once stored, into the session view once; nothing else
    assert len(folded) - before == gained + stored
