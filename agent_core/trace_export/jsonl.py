"""The event log as JSON Lines: exactly ``event.to_dict()`` per line, and back."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import TextIO

from agent_core.events import Event, EventFormatError, event_from_dict
from agent_core.guards import json_limits


def event_line(event: Event) -> str:
    """One event as one line of JSON, as ``ask --json`` prints it (no trailing newline; non-ASCII kept as is)."""
    return json.dumps(event.to_dict(), ensure_ascii=False)


def to_jsonl(events: Iterable[Event]) -> str:
    """All events, one JSON object per line, each line ending with a newline."""
    return "".join(event_line(e) + "\n" for e in events)


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
