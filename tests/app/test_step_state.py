"""One state model for a step (running, ok, error, stopped) and a page that waits for a run it just started."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest

from agent_core.engine.agent import Agent
from agent_core.events import Event, RunFinished, RunStarted
from agent_core.guards.limits import CancelToken
from agent_core.runtime.sessions import LiveRun
from agent_core.store import SessionStore
from agent_core.store.runs import Runs
from agent_core.store.sessions import record_events
from agent_core.store.tables import UNTITLED
from agent_core.testing import ScriptedModel
from agent_core.tools import builtin_tools
from agent_core.views.transcript import Transcript
from sparrow_ui.chat import live_turn
from sparrow_ui.chat.live_turn import until_started
from sparrow_ui.shell.session_view import session_view
from sparrow_ui.steps.step_status import step_chips, step_icon, step_state
from tests.core.helpers import answer, react


def _turn(replies: list[str], *, cut: int | None = None) -> tuple[Transcript, list[Event]]:
    events = list(Agent(model=ScriptedModel(replies), tools=builtin_tools()).run("What is 6 * 7?"))
    shown = events[:cut] if cut is not None else events
    return Transcript.from_events(shown), events


def test_a_running_step_has_one_state_live_and_in_a_replay() -> None:
    replies = [react("Multiply.", "calculator", expression="6 * 7"), answer("Done.", "42")]
    transcript, events = _turn(replies, cut=None)
    finished = transcript.turns[0]
    assert [step_state(finished, i, live=False) for i in range(2)] == ["ok", "ok"]
    cut = next(i for i, e in enumerate(events) if e.type == "step_started" and e.step == 2) + 1
    half = Transcript.from_events(events[:cut]).turns[0]
    assert step_state(half, 1, live=True) == "running" and step_icon(half, 1, live=True) == "spinner"
    assert [c.text for c in step_chips(half, 1, live=True)] == ["running"]
    assert [c.text for c in step_chips(half, 1, live=True, replay=True)] == ["at this point"]
    assert step_state(half, 1, live=False) == "stopped"  # an interrupted recording: never "running"


def test_a_run_ended_by_unusable_replies_counts_them_without_going_over() -> None:
    transcript, _ = _turn(["no format here", "still none", "nope"])
    turn = transcript.turns[0]
    assert turn.status == "format_error"
    chips = [[c.text for c in step_chips(turn, i, live=False)] for i in range(len(turn.steps))]
    assert chips == [
        ["unusable reply · retry 1 of 2"],
        ["unusable reply · retry 2 of 2"],
        ["unusable reply · gave up after 3"],
    ]
    assert [step_state(turn, i, live=False) for i in range(3)] == ["error", "error", "error"]


def _late_start(delay: float) -> Iterator[Event]:
    time.sleep(delay)
    yield RunStarted(run_id="run_1", ts=time.time(), question="late?", model="m", protocol="react")
    yield RunFinished(run_id="run_1", ts=time.time(), status="completed")


def test_the_page_waits_for_a_run_that_starts_late() -> None:
    live = LiveRun("ses", _late_start(0.4), CancelToken(), run_id="run_1").start()
    assert not live.events  # the page's rerun comes before the run's first event
    assert until_started(live) is True and isinstance(live.events[0], RunStarted)


def test_the_page_does_not_wait_for_a_run_that_ended_without_starting() -> None:
    live = LiveRun("ses", iter(()), CancelToken(), run_id="run_1").start()
    live.join(2)
    assert until_started(live) is False


def test_a_start_that_comes_just_after_the_wait_is_read_with_the_sessions_title(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The wait gives up, then the start arrives before the live events are taken: the session is read again."""
    gate = threading.Event()

    def late_start() -> Iterator[Event]:
        gate.wait(5)
        yield from _late_start(0)

    def wait_that_gives_up(live: LiveRun) -> bool:
        gate.set()  # the run starts just as the page stops waiting for it
        while not live.events:
            live.wait(0, 0.05)
        return False

    store = SessionStore.open()
    try:
        session = store.sessions.create()
        view = session_view(store, session.id)
        assert view.info is not None and view.info.title == UNTITLED
        live = LiveRun(session.id, record_events(store, session.id, late_start()), CancelToken(), run_id="run_1")
        monkeypatch.setattr(live_turn, "until_started", wait_that_gives_up)
        view, fold = live_turn.live_view(store, view, live.start())
        assert view.info is not None and view.info.title == "late?"  # what the sidebar names the session
        assert view.transcript.turn("run_1") is not None and fold.transcript.turn("run_1") is not None
        assert fold.seen >= 1
        live.join(2)
    finally:
        store.close()


def test_a_run_stored_between_reading_the_session_and_its_events_brings_its_title() -> None:
    """The session is read, then a run's start is stored, then the events are read: the title is the question's."""

    store = SessionStore.open()

    class StartsBetweenReads(Runs):
        def events_after(self, session_id: str, after_seq: int) -> list[tuple[int, Event]]:
            if not super().events_after(session_id, after_seq):
                store.log.append(session_id, list(_late_start(0))[:1])
            return super().events_after(session_id, after_seq)

    store.runs = StartsBetweenReads(store.access)
    try:
        session = store.sessions.create()
        view = session_view(store, session.id)
        assert view.transcript.turn("run_1") is not None
        assert view.info is not None and view.info.title == "late?"  # not "New session" beside the question
    finally:
        store.close()


def test_a_runs_time_splits_into_parts_that_add_up_to_its_duration() -> None:
    from agent_core.views.metrics import run_metrics
    from agent_core.views.timeline import build_timeline, time_split

    replies = [react("Multiply.", "calculator", expression="6 * 7"), answer("Done.", "42")]
    transcript, events = _turn(replies)
    turn = transcript.turns[0]
    split = time_split(turn)
    duration = run_metrics(events).duration_ms
    assert split.total_ms == pytest.approx(duration) and duration == pytest.approx(turn.worked_ms)
    assert min(split.model_ms, split.tool_ms, split.start_ms, split.between_ms) >= 0
    assert max(row.end_ms for row in build_timeline(events).rows) <= duration + 1e-6  # the waterfall ends within it
