"""Current date and time in any IANA time zone."""

from __future__ import annotations

import difflib
from datetime import datetime
from functools import cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from agent_core.tools.tool import ToolError, ToolOutput, tool

_MAX_ZONE_NAME = 64
"""Longer than any IANA zone name ("America/Argentina/ComodRivadavia" is 32)."""


@tool(inline=True, repeatable=True)  # bounded, pure work: no worker thread needed; the time moves on
def get_current_time(timezone: str | None = None) -> ToolOutput:
    """Get the current date, time and weekday, optionally in a given time zone.

    Args:
        timezone: IANA time zone name such as "Asia/Shanghai" or "Europe/Paris"; omit for UTC.
    """
    zone = resolve_zone(timezone or "UTC")
    now = datetime.now(zone)
    text = f"{now:%Y-%m-%d %H:%M:%S} {now:%A} ({zone.key}, UTC{now:%z})"
    return ToolOutput(text, {"iso": now.isoformat(), "timezone": zone.key, "weekday": now.strftime("%A")})


def resolve_zone(name: str) -> ZoneInfo:
    """A ZoneInfo for ``name``; ToolError with close suggestions for an unknown zone."""
    cleaned = name.strip().replace(" ", "_")
    if len(cleaned) > _MAX_ZONE_NAME:  # the fuzzy match below costs length x zones
        raise ToolError(f"unknown time zone (the name is {len(cleaned):,} characters; IANA names are short)")
    if cleaned.upper() in {"UTC", "GMT", "Z"}:
        cleaned = "UTC"
    try:
        return ZoneInfo(cleaned)
    except (ZoneInfoNotFoundError, ValueError, IsADirectoryError):
        pass
    lower = {z.lower(): z for z in _zones()}
    if cleaned.lower() in lower:
        return ZoneInfo(lower[cleaned.lower()])
    close = difflib.get_close_matches(cleaned, _zones(), n=3, cutoff=0.5)
    hint = f" Did you mean {', '.join(close)}?" if close else ' Use an IANA name such as "Asia/Shanghai".'
    raise ToolError(f"unknown time zone {name!r}.{hint}")


@cache
def _zones() -> list[str]:
    return sorted(available_timezones())
