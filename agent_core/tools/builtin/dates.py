"""Date arithmetic the model should never do in its head: offsets, differences, weekdays."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Literal

from agent_core.tools.tool import ToolError, ToolOutput, tool

Operation = Literal["add", "subtract", "difference", "weekday"]


@tool(inline=True)  # bounded, pure work: no worker thread needed
def date_calculator(
    operation: Operation,
    date: str,
    days: int | None = None,
    other_date: str | None = None,
) -> ToolOutput:
    """Calculate with calendar dates: add or subtract days, count days between dates, or find a weekday.

    Args:
        operation: "add" or "subtract" (needs days), "difference" (needs other_date), or "weekday".
        date: The start date in ISO format YYYY-MM-DD, or "today".
        days: Number of days to add or subtract (for add/subtract).
        other_date: The second date YYYY-MM-DD (for difference): result is other_date minus date.
    """
    start = parse_date(date, "date")
    if operation in ("add", "subtract"):
        if days is None:
            raise ToolError(f"date_calculator: operation {operation!r} needs 'days'")
        if abs(days) > 3_650_000:
            raise ToolError("date_calculator: 'days' must be within ±3,650,000")
        try:
            result = start + timedelta(days=days if operation == "add" else -days)
        except OverflowError:
            raise ToolError("date_calculator: the result is outside the years 1-9999") from None
        sign = "+" if operation == "add" else "-"
        text = f"{_show(start)} {sign} {days} days = {_show(result)}"
        return ToolOutput(text, {"result": result.isoformat(), "weekday": result.strftime("%A")})
    if operation == "difference":
        if other_date is None:
            raise ToolError("date_calculator: operation 'difference' needs 'other_date'")
        other = parse_date(other_date, "other_date")
        delta = (other - start).days
        text = f"From {_show(start)} to {_show(other)} is {delta} days"
        return ToolOutput(text, {"days": delta})
    return ToolOutput(_show(start), {"result": start.isoformat(), "weekday": start.strftime("%A")})


def parse_date(value: str, field: str) -> date:
    """Parse YYYY-MM-DD (or "today"), with a clear error naming the field."""
    text = value.strip()
    if text.lower() == "today":
        return date.today()
    try:
        return date.fromisoformat(text.replace("/", "-"))
    except ValueError:
        raise ToolError(f"date_calculator: {field} {value!r} is not a date in YYYY-MM-DD format") from None


def _show(d: date) -> str:
    return f"{d.isoformat()} ({d.strftime('%A')})"
