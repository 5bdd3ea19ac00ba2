"""Numbers for people: every function on its edges (rounding up into the next unit, unknown, tiny)."""

from __future__ import annotations

import math

import pytest

from agent_core.formatting import format_cost, format_duration, format_percent, format_tokens, plural, share


@pytest.mark.parametrize(
    ("ms", "expected"),
    [
        (None, "—"),
        (math.nan, "—"),
        (0, "0 ms"),
        (0.04, "<1 ms"),
        (1, "1 ms"),
        (850, "850 ms"),
        (999.4, "999 ms"),
        (999.6, "1.0 s"),
        (1234, "1.2 s"),
        (59_940, "59.9 s"),
        (59_960, "1 min 0 s"),
        (123_000, "2 min 3 s"),
        (3_599_000, "59 min 59 s"),
        (3_599_600, "1 h 0 min"),
        (3_900_000, "1 h 5 min"),
    ],
)
def test_format_duration(ms: float | None, expected: str) -> None:
    assert format_duration(ms) == expected


@pytest.mark.parametrize(
    ("count", "estimated", "expected"),
    [
        (None, False, "—"),
        (0, False, "0"),
        (950, False, "950"),
        (950, True, "~950"),
        (999, False, "999"),
        (1000, False, "1.0k"),
        (3400, False, "3.4k"),
        (3449, True, "~3.4k"),
        (9_960, False, "10k"),
        (12_345, False, "12k"),
        (999_499, False, "999k"),
        (999_500, False, "1.0M"),
        (999_950, False, "1.0M"),
        (1_200_000, False, "1.2M"),
        (2_500_000_000, False, "2.5B"),
    ],
)
def test_format_tokens(count: int | None, estimated: bool, expected: str) -> None:
    assert format_tokens(count, estimated=estimated) == expected


@pytest.mark.parametrize(
    ("usd", "estimated", "expected"),
    [
        (None, False, "—"),
        (None, True, "—"),
        (0.0, False, "$0"),
        (0.0000004, False, "<$0.000001"),
        (0.0000123, False, "$0.000012"),
        (0.00214, False, "$0.0021"),
        (0.00214, True, "~$0.0021"),
        (0.0345, False, "$0.035"),
        (0.42, False, "$0.42"),
        (0.9999, False, "$1.00"),
        (1.5, False, "$1.50"),
        (12.345, False, "$12.35"),
        (1234.5, False, "$1,234.50"),
    ],
)
def test_format_cost(usd: float | None, estimated: bool, expected: str) -> None:
    assert format_cost(usd, estimated=estimated) == expected


@pytest.mark.parametrize(
    ("fraction", "digits", "expected"),
    [
        (None, 0, "—"),
        (0.0, 0, "0%"),
        (0.004, 0, "<1%"),
        (0.004, 1, "0.4%"),
        (0.0004, 1, "<0.1%"),
        (0.123, 0, "12%"),
        (0.5, 0, "50%"),
        (1.0, 0, "100%"),
    ],
)
def test_format_percent(fraction: float | None, digits: int, expected: str) -> None:
    assert format_percent(fraction, digits=digits) == expected


def test_share_and_plural() -> None:
    assert (share(1, 4), share(None, 4), share(1, None), share(1, 0)) == (0.25, None, None, None)
    assert [plural(n, "error") for n in (0, 1, 2, 1500)] == ["0 errors", "1 error", "2 errors", "1,500 errors"]
    assert plural(2, "reply", "replies") == "2 replies"
