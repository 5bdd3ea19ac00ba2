"""What if: fork a run at a step with an edit, and continue it live in a new session.

The fork is an ordinary run in a session of its own (``parent_id`` = the original's session, its
``RunForked`` event names the original run and the step). Its first events are copies of the original's
up to the fork point, then the edit, then live steps; no model call before the fork point is sent again
and the original is never written to. While the branch runs, a call with the same tool and canonical
arguments as one the original made is answered with the recorded result (see ``RecordedResults``).

    fork, events = fork_run(store, session_id, run_id, 2, agent, edit=StepEdit("observation", text="42"))
    for event in events: ...          # recorded in the fork as they come
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from agent_core.engine.agent import Agent, new_run_id
from agent_core.engine.state import RecordedResults, RunState
from agent_core.events import Event, RunForked, RunStarted
from agent_core.guards.limits import CancelToken
from agent_core.models.endpoints import recorded_endpoint
from agent_core.runtime.fork_edit import ForkPlan, StepEdit, plan_fork
from agent_core.runtime.rerun import fork_before_run
from agent_core.runtime.session_runs import load_memory, recorded_run
from agent_core.store import SessionInfo, SessionStore

__all__ = ["PreparedFork", "StepEdit", "fork_run", "prepare_fork", "run_events_of", "start_fork"]


def run_events_of(store: SessionStore, session_id: str, run_id: str) -> list[Event]:
    """The events of one run of a session; KeyError if the session has no such run."""
    events = [e for e in store.log.events(session_id) if e.run_id == run_id]
    if not any(isinstance(e, RunStarted) for e in events):
        raise KeyError(f"session {session_id!r} has no run {run_id!r}")
    return events


@dataclass(frozen=True)
class PreparedFork:
    """A fork's new session and the branch's first events, before anything runs (see ``start_fork``)."""

    session: SessionInfo
    run_id: str
    """The branch's run id."""
    head: tuple[RunStarted, RunForked]
    plan: ForkPlan


def prepare_fork(
    store: SessionStore,
    session_id: str,
    run_id: str,
    at_step: int,
    agent: Agent,
    *,
    edit: StepEdit | None = None,
    reuse: bool = True,
    no_reuse_tools: Iterable[str] = (),
) -> PreparedFork:
    """Make the fork's session (the turns before the run, ``parent_id`` = the original) and set ``agent`` up for it.

    ``agent`` holds the branch's model, tools, protocol and settings (they apply from the fork point on).
    Raises KeyError for an unknown run, ValueError when the step or the edit does not fit it.
    """
    edit = edit or StepEdit()
    original = run_events_of(store, session_id, run_id)
    started = next(e for e in original if isinstance(e, RunStarted))
    branch_id = new_run_id()
    plan = plan_fork(original, at_step, edit, branch_id, agent.protocol.name)
    source = store.sessions.get(session_id)
    title = f"forked from {source.title} at step {at_step} ({edit.label})"[:200]
    fork = fork_before_run(store, session_id, run_id, title=title)
    load_memory(agent, store.log.events(fork.id))
    skip = set(no_reuse_tools)
    agent.recorded = RecordedResults(RunState.fold(original), session_id=session_id, skip=skip) if reuse else None
    marker = RunForked(
        run_id=branch_id,
        from_session=session_id,
        from_run=run_id,
        at_step=at_step,
        edit={**edit.to_dict(), "settings": settings_changed(started, agent)},
        copied_events=plan.copied,
    )
    return PreparedFork(fork, branch_id, (_started(agent, started.question, branch_id), marker), plan)


def start_fork(
    store: SessionStore, prepared: PreparedFork, agent: Agent, *, cancel: CancelToken | None = None
) -> Iterator[Event]:
    """The branch's events, recorded in its session as they come (the run is claimed for this process now)."""
    cancel = cancel or CancelToken()
    events = _branch(agent, *prepared.head, prepared.plan, cancel)
    return _recorded(store, prepared.session.id, agent, prepared.run_id, events, cancel)


def fork_run(
    store: SessionStore,
    session_id: str,
    run_id: str,
    at_step: int,
    agent: Agent,
    *,
    edit: StepEdit | None = None,
    reuse: bool = True,
    no_reuse_tools: Iterable[str] = (),
    cancel: CancelToken | None = None,
) -> tuple[SessionInfo, Iterator[Event]]:
    """A new session forked from run ``run_id`` at ``at_step``, and the branch's events (recorded as they come).

    ``prepare_fork`` then ``start_fork``; raises KeyError for an unknown run, ValueError for a step or an edit
    that does not fit it.
    """
    prepared = prepare_fork(
        store, session_id, run_id, at_step, agent, edit=edit, reuse=reuse, no_reuse_tools=no_reuse_tools
    )
    return prepared.session, start_fork(store, prepared, agent, cancel=cancel)


def settings_changed(started: RunStarted, agent: Agent) -> dict[str, Any]:
    """What the branch runs with that the original did not: model, protocol and settings, new values."""
    changed: dict[str, Any] = {}
    if agent.model.name != started.model:
        changed["model"] = agent.model.name
    if agent.protocol.name != started.protocol:
        changed["protocol"] = agent.protocol.name
    now = agent.settings.to_record()
    changed |= {k: v for k, v in now.items() if k in started.settings and started.settings[k] != v}
    if agent.instructions:
        changed["instructions"] = agent.instructions
    return changed


def _started(agent: Agent, question: str, run_id: str) -> RunStarted:
    return RunStarted(
        run_id=run_id,
        question=question,
        model=agent.model.name,
        protocol=agent.protocol.name,
        tools=tuple(t.schema for t in agent.tools),
        settings=agent.settings.to_record(),
        endpoint=recorded_endpoint(agent.model),
    )


def _branch(
    agent: Agent, started: RunStarted, marker: RunForked, plan: ForkPlan, cancel: CancelToken
) -> Iterator[Event]:
    """RunStarted, RunForked, the copies and the edit, then the same loop over their fold: the edited step's calls,
    then its answer or the live steps."""
    head: list[Event] = [started, marker, *plan.events]
    yield from head
    yield from agent.branch(head, plan.next_step - 1, calls=plan.calls, answer=plan.answer, cancel=cancel)


def _recorded(
    store: SessionStore,
    session_id: str,
    agent: Agent,
    run_id: str,
    events: Iterator[Event],
    cancel: CancelToken,
) -> Iterator[Event]:
    """The branch's events, recorded in its session while this process owns the run (as ``run_in_session``)."""
    return recorded_run(store, session_id, agent, run_id, lambda _claimed: events, cancel)
