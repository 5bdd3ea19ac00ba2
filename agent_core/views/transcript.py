"""A session's runs, each folded from its own events: the one fold every view of a session is built on.

The chat pane, the trace panel, replay, the metrics, the timeline and the exports all read this one structure,
built with the same code whether the events come live from a run, from the store, or from an imported file. Each
event goes to its run's ``RunState`` (``agent_core.engine.state``, the fold the engine itself runs on), which pairs
a ``ToolStarted`` with its ``ToolFinished`` and finds step boundaries. It never raises on an odd order (a
ToolFinished without its start, an unfinished or resumed run, interleaved runs): imported sessions are written by
whoever sent them.
"""

from __future__ import annotations

from collections.abc import Iterable

from agent_core.engine.state import RunState
from agent_core.events import Event


class Transcript:
    """The runs of a session, updated one event at a time (``add``) or all at once (``from_events``)."""

    def __init__(self) -> None:
        self.turns: list[RunState] = []
        """Runs whose RunStarted is in the log, in the order they started."""
        self._by_run: dict[str, RunState] = {}
        self.events_seen = 0

    @classmethod
    def from_events(cls, events: Iterable[Event]) -> Transcript:
        """Fold a whole event log."""
        transcript = cls()
        transcript.extend(events)
        return transcript

    def extend(self, events: Iterable[Event]) -> None:
        """Fold more events."""
        for event in events:
            self.add(event)

    def without(self, run_id: str) -> Transcript:
        """These runs but run ``run_id``, sharing the run states (a live run's own fold takes its place).

        The same as folding the events of the other runs again: a run's state is folded from its own events only.
        """
        other = Transcript()
        other._by_run = {rid: run for rid, run in self._by_run.items() if rid != run_id}
        other.turns = [run for run in self.turns if run.run_id != run_id]
        return other

    def turn(self, run_id: str) -> RunState | None:
        """The run ``run_id``, if its RunStarted is known."""
        run = self._by_run.get(run_id)
        return run if run is not None and run.run_started is not None else None

    @property
    def runs(self) -> list[RunState]:
        """Every run with an event in the log (its RunStarted or not), in the order they first appear."""
        return list(self._by_run.values())

    def run(self, run_id: str | None = None) -> RunState | None:
        """Run ``run_id`` (default: the last run to appear; None if there is none); KeyError if it is not here."""
        if run_id is None:
            return next(reversed(self._by_run.values()), None)
        if run_id not in self._by_run:
            raise KeyError(f"no run {run_id!r} in these events")
        return self._by_run[run_id]

    def add(self, event: Event) -> None:
        """Fold one event into its run's state."""
        self.events_seen += 1
        run = self._by_run.get(event.run_id)
        if run is None:
            run = self._by_run[event.run_id] = RunState(event.run_id)
        started = run.run_started is not None
        run.add(event)
        if not started and run.run_started is not None:
            self.turns.append(run)


__all__ = ["Transcript"]
