"""The event log as JSON Lines: exactly ``event.to_dict()`` per line, and back; an export may name who started each
run (``started_by`` on its ``run_started`` line; runs recorded before attribution existed have no name)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import TextIO

from agent_core.events import Event, EventFormatError, RunStarted, event_from_dict
from agent_core.guards import json_limits

Starters = Mapping[str, str]
"""Run id → who started the run (an email, else an OIDC subject, else ``local``): ``SessionStore.log.run_starters``."""


def event_line(event: Event, starters: Starters | None = None) -> str:
    """One event as one line of JSON, as ``ask --json`` prints it (no trailing newline; non-ASCII kept as is); a
    ``run_started`` line gains ``started_by`` when ``starters`` names its run's starter."""
    record = event.to_dict()
    if starters and isinstance(event, RunStarted) and (who := starters.get(event.run_id)) is not None:
        record["started_by"] = who
    return json.dumps(record, ensure_ascii=False)


def to_jsonl(events: Iterable[Event], starters: Starters | None = None) -> str:
    """All events, one JSON object per line, each line ending with a newline (``starters``: see ``event_line``)."""
    return "".join(event_line(e, starters) + "\n" for e in events)


def write_jsonl(events: Iterable[Event], out: TextIO) -> int:
    """Write events to a text stream as JSON Lines; returns how many were written."""
    count = 0
    for event in events:
        out.write(event_line(event) + "\n")
        count += 1
    return count


def read_jsonl(lines: str | Iterable[str]) -> list[Event]:
    """Parse JSON Lines back into events (blank lines skipped); errors name the line number."""
    source = lines.splitlines() if isinstance(lines, str) else lines
    events: list[Event] = []
    for number, line in enumerate(source, start=1):
        if not line.strip():
            continue
        try:
            events.append(event_from_dict(json_limits.loads(line)))
        except json.JSONDecodeError as exc:
            raise EventFormatError(f"line {number}: not JSON ({exc.msg})") from None
        except EventFormatError as exc:
            raise EventFormatError(f"line {number}: {exc}") from None
    return events
