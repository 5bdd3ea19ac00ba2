"""Sessions that scale: search and filters over title, questions, model, date and status; pages; alike titles."""

from __future__ import annotations

import datetime as dt

from agent_core.engine.agent import Agent
from agent_core.runtime.sessions import run_in_session
from agent_core.store import SessionStore
from agent_core.store.sessions import session_digests
from agent_core.testing import ScriptedModel
from agent_core.tools import builtin_tools
from sparrow_ui.panels.session_list import PAGE_SIZE, Filters, page, page_count, rows
from tests.core.helpers import answer


def _forty(store: SessionStore) -> list[str]:
    ids = []
    for number in range(40):
        session = store.sessions.create()
        question = "What is 6 * 7?" if number % 13 == 0 else f"Question number {number}"
        agent = Agent(model=ScriptedModel([answer("Easy.", str(number))]), tools=builtin_tools())
        list(run_in_session(store, session.id, agent, question))
        ids.append(session.id)
    return ids


def test_forty_sessions_filter_page_and_tell_alike_titles_apart() -> None:
    store = SessionStore.open("sqlite://")
    _forty(store)
    sessions = store.sessions.list()
    digests = session_digests(store.engine, [s.id for s in sessions])
    everything = rows(sessions, digests, Filters())
    assert len(everything) == 40 and page_count(40) == 4 and len(page(everything, 4)) == 40 - 3 * PAGE_SIZE
    alike = sorted(r.title for r in everything if r.info.title == "What is 6 * 7?")
    assert alike == [
        "What is 6 * 7? (1 / 4)",
        "What is 6 * 7? (2 / 4)",
        "What is 6 * 7? (3 / 4)",
        "What is 6 * 7? (4 / 4)",
    ]
    assert len({r.title for r in everything}) == 40  # no two sessions read the same
    assert [r.info.title for r in rows(sessions, digests, Filters(text="number 17"))] == ["Question number 17"]
    assert len(rows(sessions, digests, Filters(statuses=("completed",)))) == 40
    assert rows(sessions, digests, Filters(statuses=("cancelled",))) == []
    assert rows(sessions, digests, Filters(models=("no such model",))) == []
    today = dt.date.today()
    assert len(rows(sessions, digests, Filters(since=today, until=today))) == 40
    assert rows(sessions, digests, Filters(until=today - dt.timedelta(days=1))) == []
    fresh = store.sessions.create()
    assert session_digests(store.engine, [fresh.id])[fresh.id].questions == []
