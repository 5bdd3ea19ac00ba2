"""Carry on with a stored session: runs recorded in it, resumed after an interruption, rerun in a fork, watched live.

- ``run_in_session`` and ``resume_run``: an agent with the session's memory (``agent_for_session``), its runs
  recorded as they happen while this process owns them, an interrupted run continued after its last complete step.
- ``rerun_turn``: a turn's question asked again, with another model, protocol or setting, in a fork holding the
  session's events from before that turn (so the agent remembers the same earlier turns; ``parent_id`` = the
  original, left untouched). The compare view puts the two turns side by side (``agent_core.views.compare``).
- ``LiveRuns``: a web page may be refreshed, closed or opened twice while an agent works, so a run does not live
  in the page: it runs in a thread (its events written to the store as they happen by whoever built the
  iterator), and viewers read its events from an append-only list, waking as new ones arrive. A run of another
  process is followed through the event table (``FollowedRun``).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from sqlalchemy import Connection

from agent_core.engine.agent import Agent, AgentSettings, new_run_id
from agent_core.engine.approvals import Approvals
from agent_core.engine.attachments import Attachment, check_attachments
from agent_core.engine.conversation import finished_turns
from agent_core.engine.protocols import PROTOCOLS
from agent_core.events import Event, RunFinished, RunStarted
from agent_core.guards.limits import CancelToken
from agent_core.models.chat import ChatModel
from agent_core.runtime import EXAMPLE_KEY
from agent_core.store import SessionInfo, SessionStore
from agent_core.store.access import new_id
from agent_core.store.database import DatabaseUnavailable
from agent_core.store.log import decode
from agent_core.store.runs import RunOwner
from agent_core.store.sessions import record_events
from agent_core.store.tables import SessionConfig
from agent_core.tools import Tool
from agent_core.views.transcript import Transcript

log = logging.getLogger(__name__)


CONSENT_UNSET: dict[str, Any] = {"require_approval": True, "tool_approval": {}}
"""The consent settings as a session stores them: ``--yes`` and ``--trust`` belong to the run they were given for.

A later run, a resume or a fork of the session asks again unless whoever starts it says otherwise; the consent a
run had is still recorded in its own ``run_started`` settings.
"""


class NothingToResume(LookupError):
    """The session's last run finished (or it has none): there is nothing to resume."""


def config_from_agent(agent: Agent) -> SessionConfig:
    """What a session records about the agent that runs it: model name, endpoint, protocol, settings."""
    base_url = getattr(agent.model, "base_url", None)
    return SessionConfig(
        model=agent.model.name,
        base_url=base_url if isinstance(base_url, str) else None,
        protocol=agent.protocol.name,
        settings={**agent.settings.to_record(), **CONSENT_UNSET},
    )


def protocol_from_config(config: SessionConfig) -> str:
    """The session's protocol if this build knows it, else ``react``."""
    return config.protocol if config.protocol in PROTOCOLS else "react"


def agent_for_session(
    store: SessionStore,
    session_id: str,
    model: ChatModel,
    tools: Iterable[Tool] | None = None,
    *,
    protocol: str | None = None,
    settings: AgentSettings | None = None,
    **overrides: Any,
) -> Agent:
    """An Agent that remembers the session's finished runs; protocol and settings default to the session's."""
    config = store.sessions.get(session_id).config
    agent = Agent(
        model,
        tools,
        protocol=protocol or protocol_from_config(config),
        settings=settings or AgentSettings.from_record(config.settings),
        **overrides,
    )
    load_memory(agent, store.log.events(session_id))
    return agent


def load_memory(agent: Agent, events: Iterable[Event]) -> None:
    """Replace the agent's conversation memory with the finished runs in ``events`` (its options stay)."""
    agent.memory.turns = finished_turns(Transcript.from_events(events).turns)


def run_in_session(
    store: SessionStore,
    session_id: str,
    agent: Agent,
    question: str,
    *,
    cancel: CancelToken | None = None,
    persist_deltas: bool = False,
    run_id: str | None = None,
    attachments: Sequence[Attachment] = (),
) -> Iterator[Event]:
    """Run ``question`` with ``agent``, recording every event in the session (see ``record_events``).

    The run is claimed for this process first: raises SessionBusy if the session has a live run anywhere.
    """
    check_attachments(attachments, agent.model.name)  # refused before anything is claimed or sent
    cancel = cancel or CancelToken()

    def start(claimed: str) -> Iterator[Event]:
        return agent.run(question, cancel=cancel, run_id=claimed, attachments=attachments)

    return recorded_run(store, session_id, agent, run_id or new_run_id(), start, cancel, persist_deltas=persist_deltas)


def run_in_new_session(
    store: SessionStore,
    agent: Agent,
    question: str,
    *,
    title: str | None = None,
    cancel: CancelToken | None = None,
    also: Callable[[Connection, str], None] | None = None,
) -> tuple[str, Iterator[Event]]:
    """``question`` asked in a new session of the actor's; (its id, the recorded events).

    For runs that are started again from scratch when interrupted (an experiment's items): one transaction makes
    the session with the agent's configuration, claims its run and adds ``also``'s rows (``SessionStore.runs.open``),
    and the events are written grouped (``record_events``), about half the transactions of ``run_in_session``.
    """
    cancel = cancel or CancelToken()
    claim = store.runs.open(new_run_id(), config_from_agent(agent), title=title, also=also)
    events = agent.run(question, cancel=cancel, run_id=claim.run_id)
    recorded = record_events(store, claim.session_id, events, grouped=True)
    return claim.session_id, store.runs.owned(claim, cancel, recorded)


def recorded_run(
    store: SessionStore,
    session_id: str,
    agent: Agent,
    run_id: str,
    start: Callable[[str], Iterator[Event]],
    cancel: CancelToken,
    *,
    persist_deltas: bool = False,
) -> Iterator[Event]:
    """The events ``start(run_id)`` yields, recorded in the session while this process owns the run.

    The run is claimed through the acting user first (SessionNotFound, ReadOnly or SessionBusy before anything
    runs), and the agent's settings become the session's.
    """
    claim = store.runs.claim(session_id, run_id)
    try:
        store.sessions.update_config(session_id, config_from_agent(agent))
    except BaseException:
        store.runs.release(claim)
        raise
    events = start(claim.run_id)
    return store.runs.owned(claim, cancel, record_events(store, session_id, events, persist_deltas=persist_deltas))


def resume_run(
    store: SessionStore,
    session_id: str,
    agent: Agent,
    *,
    cancel: CancelToken | None = None,
    persist_deltas: bool = False,
) -> Iterator[Event]:
    """Continue the session's interrupted run after its last complete step, recording it.

    Raises NothingToResume if there is none, SessionBusy if its owner is still alive (or another process
    claimed it first: of two resuming at once, exactly one continues the run).
    """
    interrupted = store.runs.interrupted(session_id)
    if interrupted is None:
        raise NothingToResume(f"session {session_id!r} has no interrupted run")
    cancel = cancel or CancelToken()
    claim = store.runs.claim(session_id, interrupted.run_id)
    try:
        again = store.runs.interrupted(session_id)  # it may have been resumed and finished while we claimed
        if again is None or again.run_id != interrupted.run_id:
            raise NothingToResume(f"session {session_id!r} has no interrupted run")
        earlier, run_events = split_at_run(store.log.events(session_id), interrupted.run_id)
        load_memory(agent, earlier)
        store.sessions.update_config(session_id, config_from_agent(agent))
    except BaseException:
        store.runs.release(claim)
        raise
    log.info("resuming run %s of session %s", interrupted.run_id, session_id)
    events = record_events(store, session_id, agent.resume(run_events, cancel=cancel), persist_deltas=persist_deltas)
    return store.runs.owned(claim, cancel, events)


def split_at_run(events: Sequence[Event], run_id: str) -> tuple[list[Event], list[Event]]:
    """(events before the run's last ``run_started``, that run's events from there on)."""
    start = max((i for i, e in enumerate(events) if isinstance(e, RunStarted) and e.run_id == run_id), default=None)
    if start is None:
        raise NothingToResume(f"run {run_id!r} has no run_started event")
    return list(events[:start]), [e for e in events[start:] if e.run_id == run_id]


def fork_before_run(store: SessionStore, session_id: str, run_id: str, *, title: str | None = None) -> SessionInfo:
    """A new session with the events before run ``run_id`` started; KeyError if the session has no such run."""
    dump = store.dumps.read(session_id)
    start = next((e.seq for e in dump.events if e.run_id == run_id and e.type == RunStarted.type), None)
    if start is None:
        raise KeyError(f"session {session_id!r} has no run {run_id!r}")
    now = time.time()
    settings = {k: v for k, v in dump.config.settings.items() if k != EXAMPLE_KEY}  # a rerun is no example
    fork = dump.model_copy(
        update={
            "id": new_id("ses"),
            "title": title or dump.title,
            "created_at": now,
            "updated_at": now,
            "parent_id": session_id,
            "forked_from": None,
            "config": dump.config.model_copy(update={"settings": settings}),
            "events": [e for e in dump.events if e.seq < start],
            "snapshots": [],
        }
    )
    return store.dumps.add(fork)


def rerun_turn(
    store: SessionStore,
    session_id: str,
    run_id: str,
    model: ChatModel,
    tools: Iterable[Tool] | None = None,
    *,
    protocol: str,
    settings: AgentSettings | None = None,
) -> tuple[SessionInfo, Iterator[Event]]:
    """The fork, and the events of the question asked again in it (recorded as they come)."""
    question = next(
        (e.question for e in store.log.events(session_id) if isinstance(e, RunStarted) and e.run_id == run_id), None
    )
    if question is None:
        raise KeyError(f"session {session_id!r} has no run {run_id!r}")
    source = store.sessions.get(session_id)
    fork = fork_before_run(store, session_id, run_id, title=f"{source.title} · {protocol} · {model.name}"[:200])
    agent = agent_for_session(store, fork.id, model, tools, protocol=protocol, settings=settings)
    return fork, run_in_session(store, fork.id, agent, question)


class LiveRun:
    """One run's event stream in a background thread; ``wait(since)`` returns the events after ``since``."""

    def __init__(
        self,
        key: str,
        events: Iterator[Event],
        cancel: CancelToken,
        *,
        run_id: str,
        base: Sequence[Event] = (),
        approvals: Approvals | None = None,
    ) -> None:
        self.key = key
        self.approvals = approvals or Approvals()
        """Where viewers post decisions on calls awaiting approval."""
        self.run_id = run_id
        self.base: tuple[Event, ...] = tuple(base)
        """Earlier events of the same run (when resuming), so viewers can show the whole run."""
        self.cancel_token = cancel
        self.events: list[Event] = []
        self.error: str | None = None
        """Set if the iterator itself raised (the store failing, say); the run is then over."""
        self.started = time.time()
        self._source = events
        self._changed = threading.Condition()
        self._done = False
        self._thread = threading.Thread(target=self._pump, name=f"run-{key}", daemon=True)

    def start(self) -> LiveRun:
        """Start consuming the run in its thread."""
        self._thread.start()
        return self

    @property
    def done(self) -> bool:
        """True once the run's iterator is exhausted (or failed)."""
        return self._done

    def cancel(self) -> None:
        """Ask the run to stop; it ends with status ``cancelled`` shortly after."""
        self.cancel_token.cancel()

    def wait(self, since: int, timeout: float) -> list[Event]:
        """Events after index ``since``, waiting up to ``timeout`` seconds for at least one."""
        with self._changed:
            if len(self.events) <= since and not self._done:
                self._changed.wait(timeout)
            return self.events[since:]

    def join(self, timeout: float | None = None) -> bool:
        """Wait for the run to end; returns ``done``."""
        self._thread.join(timeout)
        return self._done

    def _pump(self) -> None:
        try:
            for event in self._source:
                with self._changed:
                    self.events.append(event)
                    self._changed.notify_all()
        except DatabaseUnavailable as exc:  # a long database outage: its own sentence says what and how to resume
            self.error = str(exc)
        except Exception as exc:  # the run's own errors are events; this is the plumbing failing
            self.error = f"{type(exc).__name__}: {exc}"
        finally:
            with self._changed:
                self._done = True
                self._changed.notify_all()


class _DecidedElsewhere(Approvals):
    """The approvals of a run owned by another process: asked and answered there, never by a follower."""

    def decision(self, key: str) -> bool | None:
        """Never undecided here, so a follower never offers to decide."""
        return False


class FollowedRun:
    """A run owned by another process (another replica, the CLI), followed through the event table.

    The same interface as ``LiveRun``: ``wait(since)`` returns the events after ``since``, polling the database
    at most every ``POLL_S``; ``cancel()`` asks the owner, through the database, to stop. The run is ``done``
    when its ``run_finished`` arrives, or when its owner is gone (it then shows as interrupted).
    """

    POLL_S = 0.25

    def __init__(self, store: SessionStore, session_id: str, owner: RunOwner) -> None:
        self.key = session_id
        self.run_id = owner.run_id
        self.owner = owner
        self.approvals: Approvals = _DecidedElsewhere()
        self.error: str | None = None
        self.started = time.time()
        self.events: list[Event] = []
        self._store = store
        stored = store.log.stored_events(session_id)
        self.base: tuple[Event, ...] = tuple(
            decode(s.type, s.payload) for s in stored if s.run_id == owner.run_id and s.type != "model_delta"
        )
        self._last_seq = stored[-1].seq if stored else 0
        self._done = any(isinstance(e, RunFinished) for e in self.base)
        self._polled = 0.0

    @property
    def done(self) -> bool:
        """True once the run finished, or its owner stopped heartbeating."""
        return self._done

    def cancel(self) -> None:
        """Ask the owning process to stop the run (it ends with status ``cancelled`` within about a second)."""
        self._store.runs.request_cancel(self.key, self.run_id)

    def wait(self, since: int, timeout: float) -> list[Event]:
        """Events after index ``since``, polling the event table for up to ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            if time.monotonic() - self._polled >= self.POLL_S:
                self._poll()
            left = deadline - time.monotonic()
            if len(self.events) > since or self._done or left <= 0:
                return self.events[since:]
            time.sleep(min(left, self.POLL_S))

    def _poll(self) -> None:
        self._polled = time.monotonic()
        for seq, event in self._store.runs.events_after(self.key, self._last_seq):
            self._last_seq = seq
            if event.run_id == self.run_id:
                self.events.append(event)
                self._done = self._done or isinstance(event, RunFinished)
        if not self._done and self._store.runs.live_owner(self.key) is None:
            self._done = True  # the owner released it or died: nothing more will come


ActiveRun = LiveRun | FollowedRun
"""A run in progress as a viewer sees it: started in this process, or followed from another one."""


class LiveRuns:
    """The runs in progress, one per key (a session id); finished ones are forgotten after a while."""

    def __init__(self, keep_finished_s: float = 600.0) -> None:
        self._runs: dict[str, LiveRun] = {}
        self._lock = threading.Lock()
        self.keep_finished_s = keep_finished_s

    def start(
        self,
        key: str,
        make: Callable[[CancelToken], Iterator[Event]],
        *,
        run_id: str,
        base: Sequence[Event] = (),
        approvals: Approvals | None = None,
    ) -> LiveRun:
        """Start ``make(cancel)`` for ``key``; refuses while another run of the same key is active."""
        with self._lock:
            self._prune()
            current = self._runs.get(key)
            if current is not None and not current.done:
                raise RuntimeError("a run is already in progress in this session")
            cancel = CancelToken()
            run = LiveRun(key, make(cancel), cancel, run_id=run_id, base=base, approvals=approvals)
            self._runs[key] = run
        return run.start()

    def get(self, key: str) -> LiveRun | None:
        """The current or last run of ``key``."""
        with self._lock:
            return self._runs.get(key)

    def active(self, key: str) -> LiveRun | None:
        """The run of ``key`` if it is still in progress."""
        run = self.get(key)
        return run if run is not None and not run.done else None

    def forget(self, key: str) -> None:
        """Drop a finished run (its events are in the store)."""
        with self._lock:
            run = self._runs.get(key)
            if run is not None and run.done:
                del self._runs[key]

    def _prune(self) -> None:
        now = time.time()
        for key, run in list(self._runs.items()):
            if run.done and now - run.started > self.keep_finished_s:
                del self._runs[key]
