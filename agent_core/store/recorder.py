"""Autosave: write a run's events to its session as they happen, and pass them on unchanged.

Each event is committed before the consumer sees it, so a refresh, crash or ``kill -9`` loses at most
the event being written. A failed write raises (the run stops, and stays resumable from its last
complete step) rather than going on unrecorded. A write that fails because the database is briefly away (a
locked SQLite file, a restarting PostgreSQL) is repeated with backoff (``outage.with_retry``); a long outage
stops the run with ``DatabaseUnavailable``, one sentence naming the database problem, the run resumable.
A run started again from scratch when interrupted (an experiment's item) may ask for ``grouped`` writes instead
(see ``record_events``).

``ModelDelta`` events are not stored by default: one arrives per streamed token, and they are only a
live view of text that the step's ``ModelFinished`` event stores whole (``text``, ``reasoning``,
``thought``). Storing them would multiply the writes of a run by the number of tokens for no information
a reloaded session needs. ``persist_deltas=True`` keeps them anyway (for token-timing replays): they are
then batched and written together with the next event, so they never cost a commit each.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from agent_core.events import Event, ModelDelta, RunStarted
from agent_core.store.outage import DatabaseUnavailable, with_retry
from agent_core.store.session_store import SessionStore

WAITS_AFTER = frozenset({"step_started", "tool_started", "approval_requested", "run_finished"})
"""The events after which a run waits (for its model, a tool or a person) or ends: a grouped recorder writes then."""


def record_events(
    store: SessionStore,
    session_id: str,
    events: Iterable[Event],
    *,
    persist_deltas: bool = False,
    grouped: bool = False,
) -> Iterator[Event]:
    """Yield ``events`` unchanged, writing each to the session first (``ModelDelta`` only if asked).

    ``grouped``: the events a run emits one after another without waiting are written together, in one
    transaction, before the run next waits (``WAITS_AFTER``) or ends, so each is stored within microseconds of
    its last sibling and other tabs and replicas still see every step as it starts. The consumer may see an
    event before it is stored, and a crash loses the events since the run last waited: for runs that are
    started again from the beginning when interrupted (experiment items), at about half the write transactions.
    """
    source = iter(events)
    pending: list[Event] = []
    try:
        for event in source:
            if not isinstance(event, ModelDelta) or persist_deltas:
                pending.append(event)
            if pending and not isinstance(event, ModelDelta) and (not grouped or event.type in WAITS_AFTER):
                _write(store, session_id, pending, event)
                pending = []
            yield event
    finally:
        try:
            if pending and grouped:  # a grouped run that stopped early or failed keeps what it emitted
                _write(store, session_id, pending, pending[-1])
        finally:
            close = getattr(source, "close", None)
            if close is not None:
                close()


def _write(store: SessionStore, session_id: str, batch: list[Event], last: Event) -> None:
    """Append ``batch`` (ending with ``last``), waiting out a short outage; DatabaseUnavailable after a long one."""
    try:
        with_retry(lambda: store.log.append(session_id, batch), f"the {last.type} event of run {last.run_id}")
    except DatabaseUnavailable as exc:
        if isinstance(last, RunStarted):
            raise  # nothing of the run was recorded: there is nothing to resume
        raise DatabaseUnavailable(
            f"{exc}; run {last.run_id} is interrupted, and `sessions resume {session_id}` continues it once the "
            "database is back"
        ) from None
