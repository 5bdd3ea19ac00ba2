"""Tables whose measured columns read like the rest of the app and still sort as numbers.

``st.dataframe`` shows a missing number as a grey "None" whatever the format, and its printf formats
cannot say ``<1 ms`` or switch from ms to s. So the measured columns keep their numbers (a click on the
header sorts them as numbers), a missing one is stored as ``UNMEASURED`` (it sorts first), and what a cell
shows comes from the app's formatters through a pandas Styler: ``—`` for unknown, ``<1 ms``, ``1.2 s``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any, cast

import pandas as pd
from pandas.io.formats.style import Styler

from agent_core.formatting import format_cost, format_duration

UNMEASURED = -1.0
"""Stands for "not measured" or "price unknown" in a measured column (no time or cost is negative)."""

Formatter = Callable[[float | None], str]


def _shown(formatter: Formatter) -> Callable[[Any], str]:
    def show(value: Any) -> str:
        known = isinstance(value, (int, float)) and math.isfinite(value) and value != UNMEASURED
        return formatter(float(value) if known else None)

    return show


def seconds(value: float | None) -> str:
    """A duration given in seconds, as the app writes durations (``850 ms``, ``1.2 s``)."""
    return format_duration(None if value is None else value * 1000)


DURATION_MS: Formatter = format_duration
COST: Formatter = format_cost


def styled(rows: Sequence[Mapping[str, Any]], measured: Mapping[str, Formatter]) -> Styler:
    """The rows as a table whose ``measured`` columns hold numbers and show the formatter's text."""
    frame = pd.DataFrame(list(rows))
    for column in measured:
        if column in frame:
            numbers = cast("pd.Series", pd.to_numeric(frame[column], errors="coerce"))  # a column in, a column out
            frame[column] = numbers.astype(float).fillna(UNMEASURED)
    return cast(Styler, frame.style.format({c: _shown(f) for c, f in measured.items() if c in frame}))  # it is self
