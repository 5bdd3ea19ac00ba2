"""The Sessions page's list: search and filters over title, questions, model, date and status, pages of rows,
and titles that tell alike sessions apart.

Pure functions over ``SessionInfo`` and ``SessionDigest``; the page draws what they return.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from agent_core.store import SessionInfo
from agent_core.store.sessions import SessionDigest

PAGE_SIZE = 10
"""Sessions per page."""
NO_RUN = "none"
"""The status filter's word for a session without a finished run."""


@dataclass(frozen=True)
class Filters:
    """What the user narrowed the list to (empty: everything)."""

    text: str = ""
    """Words found in the title or any question (case-insensitive)."""
    models: tuple[str, ...] = ()
    statuses: tuple[str, ...] = ()
    """Last run statuses (``completed``, ``cancelled``, ...; NO_RUN for none)."""
    since: dt.date | None = None
    until: dt.date | None = None
    """Last updated between these days (inclusive)."""


@dataclass(frozen=True)
class Row:
    """One session as listed."""

    info: SessionInfo
    digest: SessionDigest
    title: str
    """The title, numbered when other sessions have the same one: ``What is 6 * 7? (2 of 3)``."""


def status_of(digest: SessionDigest) -> str:
    """The status the filter sees."""
    return digest.status or NO_RUN


def matches(info: SessionInfo, digest: SessionDigest, filters: Filters) -> bool:
    """True when the session passes every filter."""
    words = filters.text.casefold().split()
    haystack = " ".join([info.title, *digest.questions]).casefold()
    day = dt.datetime.fromtimestamp(info.updated_at).date()
    return (
        all(word in haystack for word in words)
        and (not filters.models or (info.config.model or "") in filters.models)
        and (not filters.statuses or status_of(digest) in filters.statuses)
        and (filters.since is None or day >= filters.since)
        and (filters.until is None or day <= filters.until)
    )


def rows(sessions: Sequence[SessionInfo], digests: dict[str, SessionDigest], filters: Filters) -> list[Row]:
    """The sessions that pass ``filters``, in the given order, with titles numbered among alike ones."""
    counts = Counter(info.title for info in sessions)
    oldest_first = sorted(sessions, key=lambda info: (info.created_at, info.id))
    seen: Counter[str] = Counter()
    numbers: dict[str, int] = {}
    for info in oldest_first:
        seen[info.title] += 1
        numbers[info.id] = seen[info.title]
    result = []
    for info in sessions:
        digest = digests.get(info.id, SessionDigest())
        if not matches(info, digest, filters):
            continue
        title = info.title if counts[info.title] == 1 else f"{info.title} ({numbers[info.id]} / {counts[info.title]})"
        result.append(Row(info, digest, title))
    return result


def page_count(total: int) -> int:
    """How many pages ``total`` rows make (at least one)."""
    return max(1, -(-total // PAGE_SIZE))


def page(items: Sequence[Row], number: int) -> Sequence[Row]:
    """Page ``number`` (1-based, clamped) of ``items``."""
    number = min(max(1, number), page_count(len(items)))
    return items[(number - 1) * PAGE_SIZE : number * PAGE_SIZE]
